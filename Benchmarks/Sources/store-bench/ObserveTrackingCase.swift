import Foundation

/// observe_tracking: an observed read that joins `nodes` with `tags`, then commits to a third table (`audit`)
/// that the read does not use. A store that records what the read touches does not run it again for them.
/// Each contender counts the read's runs; the figure is the time per commit, from the first commit until the
/// observer delivered the value of a last, relevant one.
enum ObserveTrackingCase {
    /// Commits to the unrelated table.
    static let commits = 2_000
    /// Nodes (and one tag each) in the joined tables.
    static let rows = 1_000
    /// The second table of the join, filled with one tag per node, and the third table the commits go to.
    static let schema = """
        CREATE TABLE tags (id INTEGER PRIMARY KEY, node_id INTEGER NOT NULL, label TEXT NOT NULL);
        CREATE INDEX tags_node ON tags(node_id);
        CREATE TABLE audit (id INTEGER PRIMARY KEY, what TEXT NOT NULL);
        INSERT INTO tags (node_id, label) SELECT id, 'tag ' || id FROM nodes;
        """
    /// The observed read: about 100 rows of a join.
    static let joinSQL = """
        SELECT nodes.name, tags.label FROM nodes JOIN tags ON tags.node_id = nodes.id WHERE nodes.x < 100
        ORDER BY nodes.name, tags.label
        """
    /// One commit the read does not use.
    static let auditSQL = "INSERT INTO audit (what) VALUES (?)"
    /// The last commit, one the read uses (a new tag of node 1, in the result): its value ends the timing.
    static let relevantSQL = "INSERT INTO tags (node_id, label) VALUES (1, 'last')"

    /// Reports the runs on stderr (the table shows times only), with the writer's time per commit while the
    /// read is observed and before (`unobservedSeconds`: the same commits with no observation), and fails the
    /// run when `mustNotRerun` and the read ran for a commit it does not use.
    static func report(
        _ contender: String, runs: Int, runsAtFirstValue: Int, writerSeconds: Double, unobservedSeconds: Double, mustNotRerun: Bool
    ) throws {
        // After the first value: the read should have run once more, for the relevant commit.
        let reruns = runs - runsAtFirstValue - 1
        let perCommit = { (seconds: Double) in seconds / Double(commits) * 1e6 }
        FileHandle.standardError.write(
            Data(
                String(
                    format: "observe_tracking %@: %d commits to audit ran the read %d times (then 1 relevant commit); "
                        + "writer %.1f µs per commit observed, %.1f µs before\n", contender, commits, reruns,
                    perCommit(writerSeconds), perCommit(unobservedSeconds)
                ).utf8))
        if mustNotRerun { try check(reruns == 0, "\(contender) observe_tracking: the read ran \(reruns) times for unrelated commits") }
    }
}

/// Counts a read's runs, from any thread.
final class RunCounter: @unchecked Sendable {
    // @unchecked: guarded by `lock`.
    private let lock = NSLock()
    private var count = 0
    func increment() { lock.withLock { count += 1 } }
    var value: Int { lock.withLock { count } }
}

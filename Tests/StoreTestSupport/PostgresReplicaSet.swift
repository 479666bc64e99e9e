import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// A primary and, once asked for, a streaming standby of it: two private clusters on loopback ports
/// (`Tools/postgres-cluster start`, `standby`), for failover tests. The primary can be killed as a crash would leave
/// it and the standby promoted; ``remove()`` stops both and deletes their directories.
package final class PostgresReplicaSet: @unchecked Sendable {
    /// The primary's port.
    package let primaryPort: Int
    /// The standby's port (nothing listens there before ``startStandby()``).
    package let standbyPort: Int
    private let directory: String

    /// Starts the primary.
    package init() throws {
        var template = Array((NSTemporaryDirectory() as NSString).appendingPathComponent("observable-store-replicas-XXXXXX").utf8CString)
        guard let made = mkdtemp(&template) else { throw PostgresTestCluster.ClusterError("mkdtemp failed: errno \(errno)") }
        directory = String(cString: made)
        chmod(directory, 0o755)
        primaryPort = try PostgresTestCluster.freeLoopbackPort()
        var standby = try PostgresTestCluster.freeLoopbackPort()
        while standby == primaryPort { standby = try PostgresTestCluster.freeLoopbackPort() }
        standbyPort = standby
        do {
            try run(["start", "\(directory)/primary", "\(primaryPort)"])
        } catch {
            remove()
            throw error
        }
    }

    /// The URL listing both hosts, primary first (the store connects to whichever takes writes).
    package var url: String { "postgres://postgres@127.0.0.1:\(primaryPort),127.0.0.1:\(standbyPort)/postgres" }
    /// The primary's own URL.
    package var primaryURL: String { "postgres://postgres@127.0.0.1:\(primaryPort)/postgres" }
    /// The standby's own URL.
    package var standbyURL: String { "postgres://postgres@127.0.0.1:\(standbyPort)/postgres" }

    /// Makes the standby from a base backup of the primary and starts it (asynchronous streaming replication).
    package func startStandby() throws {
        try run(["standby", "\(directory)/standby", "\(standbyPort)", "\(primaryPort)"])
    }

    /// Makes the standby synchronous (`synchronous_standby_names = '*'` on the primary): from then on a COMMIT returns
    /// only once the standby has the commit. Waits until the primary reports it so.
    package func makeStandbySynchronous(timeout: Double = 30) throws {
        try PostgresTestServer.psql("ALTER SYSTEM SET synchronous_standby_names = '*'", on: primaryURL)
        try PostgresTestServer.psql("SELECT pg_reload_conf()", on: primaryURL)
        let deadline = Date(timeIntervalSinceNow: timeout)
        while Date() < deadline {
            let state = try PostgresTestServer.psql("SELECT sync_state FROM pg_stat_replication", on: primaryURL)
            if state.trimmingCharacters(in: .whitespacesAndNewlines) == "sync" { return }
            Thread.sleep(forTimeInterval: 0.05)
        }
        throw PostgresTestCluster.ClusterError("the standby did not become synchronous in \(timeout) s")
    }

    /// Stops the primary at once (`pg_ctl -m immediate`): no shutdown checkpoint, connections cut.
    package func killPrimary() throws {
        try run(["kill", "\(directory)/primary"])
    }

    /// Promotes the standby, returning once it takes writes.
    package func promoteStandby() throws {
        try run(["promote", "\(directory)/standby"])
    }

    /// Waits until the standby has replayed everything the primary has written, at most `timeout` seconds.
    package func waitForStandbyToCatchUp(timeout: Double = 30) throws {
        let target = try PostgresTestServer.psql("SELECT pg_current_wal_lsn()", on: primaryURL).trimmingCharacters(in: .whitespacesAndNewlines)
        let deadline = Date(timeIntervalSinceNow: timeout)
        while Date() < deadline {
            let caughtUp = try PostgresTestServer.psql(
                "SELECT pg_last_wal_replay_lsn() >= '\(target)'::pg_lsn", on: standbyURL
            ).trimmingCharacters(in: .whitespacesAndNewlines)
            if caughtUp == "t" { return }
            Thread.sleep(forTimeInterval: 0.05)
        }
        throw PostgresTestCluster.ClusterError("the standby did not replay up to \(target) in \(timeout) s")
    }

    /// Stops both servers (whatever state they are in) and deletes their directories.
    package func remove() {
        for server in ["primary", "standby"] where FileManager.default.fileExists(atPath: "\(directory)/\(server)/data/postmaster.pid") {
            try? run(["kill", "\(directory)/\(server)"])
        }
        try? FileManager.default.removeItem(atPath: directory)
    }

    /// Runs `Tools/postgres-cluster` with `arguments`; throws with its output when it fails. The output goes to a file,
    /// not a pipe: the server the script starts would inherit a pipe's end and hold it open after the script ended.
    private func run(_ arguments: [String]) throws {
        let log = "\(directory)/cluster.log"
        let result = try RunningProcess(
            executable: URL(fileURLWithPath: "/bin/sh"), ["-c", "exec \"$0\" \"$@\" >> \"\(log)\" 2>&1", PostgresTestCluster.script.path] + arguments,
            discardingOutput: true
        ).wait(timeout: 120)
        guard result.status == 0, !result.signaled, !result.timedOut else {
            let output = (try? String(contentsOfFile: log, encoding: .utf8)) ?? ""
            throw PostgresTestCluster.ClusterError(
                "postgres-cluster \(arguments.joined(separator: " ")) failed (status \(result.status)"
                    + (result.timedOut ? ", timed out" : "") + "): \(output.suffix(2000))")
        }
    }
}

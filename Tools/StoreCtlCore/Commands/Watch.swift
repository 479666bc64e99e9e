import ArgumentParser
import Foundation
import ObservableStore

/// `storectl watch [TABLE …]`: live NDJSON, one event per changed row, from every process.
struct Watch: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Print every committed change as NDJSON, live, from every process writing the store.",
        discussion: """
            One line per changed row: seq, ts, origin, table, op, id and the changed values.
            Resume after an interruption with --since <last seq printed>.
            Examples:
              storectl watch
              storectl watch nodes --since 0 --count 10
              storectl watch --timeout 30s
            """)

    @OptionGroup var global: GlobalOptions
    @Argument(help: "Only these tables (all when omitted).") var tables: [String] = []
    @Option(name: .long, help: "Start after this commit sequence (0: the whole log), or 'now' (the default).") var since = "now"
    @Option(name: .long, help: "Exit after this many row events.") var count: Int?
    @Option(name: .long, help: "Exit after this long, e.g. 30s.") var timeout: String?

    func validate() throws {
        if since != "now", Int64(since) == nil || Int64(since)! < 0 { throw ValidationError("--since takes a sequence number or 'now'") }
        if let timeout, Duration.parse(timeout) == nil { throw ValidationError("--timeout: '\(timeout)' is not a duration") }
        if let count, count < 1 { throw ValidationError("--count must be at least 1") }
    }

    func run() throws {
        let store = try global.openCommandStore(.current(migrate: false), live: true)
        defer { store.close() }
        let filter = tables.isEmpty ? ChangeFilter.all : ChangeFilter(tables: Set(tables))
        let printer = EventPrinter(limit: count)
        // The log is the truth: the listener (registered before the first read, so nothing falls in
        // between) only says when to read it again. External changes and migrations are log rows too.
        let doorbell = Doorbell()
        let token = store.listen("storectl-watch-\(getpid())", filter: .all, options: ListenerOptions(bufferSize: 1)) { _ in
            doorbell.ring()
        }
        let deadline = timeout.flatMap(Duration.parse).map { ContinuousClock.now + $0 }
        var cursor = since == "now" ? try store.lastSequence() : Int64(since)!
        // The last entry read: a commit logged in pieces may be cut by a page, and goes on with its next piece.
        var last: Commit?
        while !printer.isDone {
            let commits = try last.map { try store.commits(following: $0, limit: 256) } ?? store.commits(after: cursor, limit: 256)
            if let first = commits.first, first.piece.index == 0, first.sequence > cursor + 1 {
                printer.print(.resync(.missedCommits((cursor + 1)...(first.sequence - 1))))
            }
            for commit in commits where !printer.isDone {
                if commit.isExternalChange {
                    printer.printExternalChange(commit)
                } else if let matching = filter.apply(commit) {
                    printer.print(.commit(matching))
                }
            }
            if let end = commits.last {
                last = end
                cursor = end.sequence
            }
            if printer.isDone { break }  // --count reached: exit now, not at the next commit or the timeout
            if !commits.isEmpty { continue }  // a page may end early (a few MiB of changes): read until the log is empty
            guard doorbell.wait(until: deadline) else { break }
        }
        withExtendedLifetime(token) {}
    }
}

/// Wakes the reader of the log: a ring is kept until the next wait takes it.
///
/// `@unchecked Sendable`: `rung` is guarded by `condition`.
final class Doorbell: @unchecked Sendable {
    private let condition = NSCondition()
    private var rung = false

    func ring() {
        condition.withLock {
            rung = true
            condition.broadcast()
        }
    }

    /// Waits for a ring (taking it) until `deadline` (nil: for ever); false when the deadline passed first.
    func wait(until deadline: ContinuousClock.Instant?) -> Bool {
        condition.withLock {
            while !rung {
                let remaining = deadline.map { ContinuousClock.now.duration(to: $0) } ?? .seconds(3600)
                if remaining <= .zero { return false }
                let seconds = Double(remaining.components.seconds) + Double(remaining.components.attoseconds) / 1e18
                _ = condition.wait(until: Date().addingTimeInterval(min(seconds, 3600)))
            }
            rung = false
            return true
        }
    }
}

/// Prints events as NDJSON lines and counts row events (called from the reading thread only). The lines of one
/// event go out together, in as few writes as the buffer allows, when the call that prints them returns.
final class EventPrinter {
    private let limit: Int?
    private let out = OutputBuffer()
    private var printed = 0
    private(set) var isDone = false

    init(limit: Int?) { self.limit = limit }

    /// A log row that stands for a foreign write.
    func printExternalChange(_ commit: Commit) {
        defer { flush() }
        write("{\"seq\":\(commit.sequence),\"ts\":\"\(CommitJSON.timestamp(commit.committedAt))\",\"event\":\"external_change\"}")
    }

    func print(_ event: StoreEvent) {
        defer { flush() }
        switch event {
        case .commit(let commit):
            let head = CommitJSON.headMembers(commit)
            // Every piece of a commit logged in pieces says it changed the schema: print that once.
            if commit.schemaChanged, commit.piece.index == 0 { write("{" + head + ",\"event\":\"schema_changed\"}") }
            for change in commit.changes {
                write("{" + head + "," + CommitJSON.changeMembers(change) + "}", countsAsRow: true)
            }
        case .resync(let reason):
            // The contract's names: "gap" for commits the output skips, "external_change" for a foreign write.
            if let missed = reason.missed {
                write("{\"event\":\"gap\",\"missed\":[\(missed.lowerBound),\(missed.upperBound)]}")
            } else {
                write("{\"event\":\"external_change\",\"ts\":\"\(CommitJSON.timestamp(Date()))\"}")
            }
        }
    }

    private func write(_ line: String, countsAsRow: Bool = false) {
        guard !isDone else { return }
        out.append(line)
        out.append(UInt8(ascii: "\n"))
        guard countsAsRow else { return }
        printed += 1
        if let limit, printed >= limit { isDone = true }
    }

    /// Writes the buffered lines. A failed write (a full disk) ends the program: one error line, exit 1.
    private func flush() {
        do {
            try out.flush()
        } catch {
            StoreCtl.report(error, json: StoreCtl.wantsJSONErrors(Array(CommandLine.arguments.dropFirst())), verbose: false)
            exit(ExitCodes.code(for: error))
        }
    }
}

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
        let store = try global.openStore(.current(migrate: false))
        defer { store.close() }
        let filter = tables.isEmpty ? ChangeFilter.all : ChangeFilter(tables: Set(tables))
        let printer = EventPrinter(limit: count)
        // Listen first, then replay the log up to where the listener starts: nothing falls in between.
        let token = store.listen("storectl-watch-\(getpid())", filter: filter) { printer.live($0) }
        let start = since == "now" ? try store.lastSequence() : Int64(since)!
        var cursor = start
        while !printer.isDone {
            let commits = try store.commits(after: cursor, limit: 256)
            guard let last = commits.last else { break }
            if let first = commits.first, first.sequence > cursor + 1 {
                printer.emit(.gap(missed: (cursor + 1)...(first.sequence - 1)))
            }
            for commit in commits {
                if let matching = filter.apply(commit) { printer.emit(.commit(matching)) } else { printer.skip(commit.sequence) }
            }
            cursor = last.sequence
        }
        printer.startLive(after: cursor)
        let deadline = timeout.flatMap(Duration.parse).map { DispatchTime.now() + .milliseconds(Int($0.components.seconds * 1000 + $0.components.attoseconds / 1_000_000_000_000_000)) }
        printer.waitUntilDone(deadline: deadline ?? .distantFuture)
        withExtendedLifetime(token) {}
    }
}

/// Prints events as NDJSON lines, in sequence order, once each, and counts row events.
///
/// `@unchecked Sendable`: all state is guarded by `condition`.
final class EventPrinter: @unchecked Sendable {
    private let condition = NSCondition()
    private let limit: Int?
    private var printed = 0
    private var lastSequence: Int64 = -1
    private var isLive = false
    private var held: [StoreEvent] = []
    private var done = false

    init(limit: Int?) { self.limit = limit }

    var isDone: Bool { condition.withLock { done } }

    /// From the listener: held until the replay is over, then printed.
    func live(_ event: StoreEvent) {
        condition.withLock {
            if isLive { print(event) } else { held.append(event) }
        }
    }

    /// From the replay.
    func emit(_ event: StoreEvent) { condition.withLock { print(event) } }

    /// A replayed commit that did not match: later live duplicates of it are ignored too.
    func skip(_ sequence: Int64) { condition.withLock { lastSequence = max(lastSequence, sequence) } }

    /// The replay reached `sequence`: print what the listener held past it, then go live.
    func startLive(after sequence: Int64) {
        condition.withLock {
            lastSequence = max(lastSequence, sequence)
            for event in held { print(event) }
            held.removeAll()
            isLive = true
        }
    }

    func waitUntilDone(deadline: DispatchTime) {
        condition.withLock {
            while !done {
                let remaining = deadline == .distantFuture ? 3600.0 : Double(Int64(deadline.uptimeNanoseconds) - Int64(DispatchTime.now().uptimeNanoseconds)) / 1e9
                if remaining <= 0 { return }
                _ = condition.wait(until: Date().addingTimeInterval(min(remaining, 3600)))
            }
        }
    }

    /// Prints `event` (under the lock).
    private func print(_ event: StoreEvent) {
        guard !done else { return }
        var lines: [String] = []
        switch event {
        case .commit(let commit):
            guard commit.sequence > lastSequence else { return }
            lastSequence = commit.sequence
            let head = "\"seq\":\(commit.sequence),\"ts\":\(JSONText.string(EventPrinter.timestamp(commit.committedAt))),\"origin\":"
                + (commit.origin.map(JSONText.string) ?? "null")
            if commit.schemaChanged { lines.append("{" + head + ",\"event\":\"schema_changed\"}") }
            for change in commit.changes {
                let id = change.key.count == 1 ? JSONText.value(change.key[0]) : "[" + change.key.map(JSONText.value).joined(separator: ",") + "]"
                var line = "{" + head + ",\"table\":\(JSONText.string(change.table)),\"op\":\"\(change.operation.rawValue)\",\"id\":\(id)"
                if let new = change.new {
                    let names = change.operation == .update ? change.changedColumns : new.columns
                    line += ",\"changes\":" + JSONText.object(names, names.map { new[$0] ?? .null })
                }
                lines.append(line + "}")
            }
        case .gap(let missed):
            lastSequence = max(lastSequence, missed.upperBound)
            lines.append("{\"event\":\"gap\",\"missed\":[\(missed.lowerBound),\(missed.upperBound)]}")
        case .externalChange:
            lines.append("{\"event\":\"external_change\",\"ts\":\(JSONText.string(EventPrinter.timestamp(Date())))}")
        }
        for line in lines {
            guard !done else { break }
            FileHandle.standardOutput.write(Data((line + "\n").utf8))
            if line.contains("\"op\":") {
                printed += 1
                if let limit, printed >= limit {
                    done = true
                    condition.broadcast()
                }
            }
        }
    }

    static func timestamp(_ date: Date) -> String {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        return formatter.string(from: date)
    }
}

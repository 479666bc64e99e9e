import Foundation
import Logging
import ObservableStoreCore
import Synchronization

/// A change-log entry of ``MemoryEngine``: a commit kept as it is, counted when decoded.
struct MemoryEntry: ChangeLogEntry {
    let commit: Commit
    let decodings: Decodings

    var sequence: Int64 { commit.sequence }
    var isExternalChange: Bool { commit.isExternalChange }
    var encodedSize: Int { 64 }
    var pieceCount: Int { 1 }

    func decoded() throws -> Commit {
        decodings.count.add(1, ordering: .relaxed)
        return commit
    }

    /// How many entries were decoded (a publisher with no listener decodes none).
    final class Decodings: Sendable {
        let count = Atomic<Int>(0)
    }
}

/// The smallest engine the core runs on: a change log, a table of named integer values and durable cursors,
/// all in memory. It shows that the core needs no SQLite, and drives the core's delivery the way an engine
/// must (a registry, a publisher, `publishOwn` after each commit). The SQLite engine is tested on real files
/// in ObservableStoreTests.
final class MemoryEngine: StoreEngine {
    struct State {
        var log: [MemoryEntry] = []
        var lastSequence: Int64 = 0
        var values: [String: Int64] = [:]
        var cursors: [String: Int64] = [:]
        /// Entries with sequences at or below this were pruned.
        var prunedThrough: Int64 = 0
    }

    let state = Mutex(State())
    let decodings = MemoryEntry.Decodings()
    let registry: ListenerRegistry
    let publisher: CommitPublisher<MemoryEntry>
    let errors = Received<String>()

    init() {
        let errors = self.errors
        registry = ListenerRegistry(
            context: DeliveryContext(spinWindow: .zero), logger: Logger(label: "memory-engine"),
            errorHandler: { name, error in errors.append("\(name): \(error)") })
        publisher = CommitPublisher(registry: registry, logger: Logger(label: "memory-engine"))
    }

    /// Commits `values` (name → value) as one commit of table "values", then publishes it.
    @discardableResult
    func commit(_ values: [String: Int64], origin: String? = nil) -> Int64 {
        let entry = append(values, origin: origin)
        publisher.publishOwn(entry, log: reader)
        return entry.sequence
    }

    /// Appends a commit to the log without publishing it (another process's commit, not yet seen); an
    /// `external` one is a marker for a write that did not log its changes.
    func commitElsewhere(_ values: [String: Int64], external: Bool = false) {
        append(values, origin: nil, external: external)
    }

    @discardableResult
    private func append(_ values: [String: Int64], origin: String?, external: Bool = false) -> MemoryEntry {
        state.withLock { state -> MemoryEntry in
            state.lastSequence += 1
            let changes = values.sorted { $0.key < $1.key }.map { name, value in
                let old = state.values[name].map { Row(columns: ["name", "value"], values: [.text(name), .integer($0)]) }
                state.values[name] = value
                return Change(
                    table: "values", operation: old == nil ? .insert : .update, key: [.text(name)], old: old,
                    new: Row(columns: ["name", "value"], values: [.text(name), .integer(value)]),
                    changedColumns: old == nil ? ["name", "value"] : ["value"])
            }
            let entry = MemoryEntry(
                commit: Commit(
                    sequence: state.lastSequence, committedAt: Date(), origin: origin, changes: external ? [] : changes,
                    schemaChanged: false, isExternalChange: external),
                decodings: decodings)
            state.log.append(entry)
            return entry
        }
    }

    /// Drops the log's entries through `sequence` (retention).
    func prune(through sequence: Int64) {
        state.withLock { state in
            state.log.removeAll { $0.sequence <= sequence }
            state.prunedThrough = max(state.prunedThrough, sequence)
        }
    }

    var reader: LogReader { LogReader(engine: self) }

    struct LogReader: ChangeLogReading {
        let engine: MemoryEngine

        func entries(after sequence: Int64, through last: Int64?, limit: Int) throws -> [MemoryEntry] {
            engine.state.withLock { state in
                Array(state.log.filter { $0.sequence > sequence && $0.sequence <= (last ?? .max) }.prefix(limit))
            }
        }

        func lastSequence() throws -> Int64 { engine.state.withLock { $0.lastSequence } }

        func piece(_ index: Int, of sequence: Int64) throws -> MemoryEntry? { nil }  // every commit is one piece
    }

    // MARK: - StoreEngine

    func readSnapshot<T>(_ body: ([String: Int64]) throws -> T) throws -> (value: T, position: SnapshotPosition) {
        let (values, sequence) = state.withLock { ($0.values, $0.lastSequence) }
        return (try body(values), SnapshotPosition(sequence: sequence))
    }

    func readLog(after sequence: Int64, limit: Int) throws -> (entries: [MemoryEntry], last: Int64) {
        (try reader.entries(after: sequence, through: nil, limit: limit), try reader.lastSequence())
    }

    func advanceCursor(of name: String, to sequence: Int64) throws {
        state.withLock { state in state.cursors[name] = max(state.cursors[name] ?? 0, sequence) }
    }

    func cursor(of name: String, isAtLeast sequence: Int64) throws -> Bool {
        state.withLock { ($0.cursors[name] ?? 0) >= sequence }
    }
}

/// Waits until `condition` holds, polling; false after `timeout` seconds.
func eventually(timeout: Double = 10, _ condition: () -> Bool) -> Bool {
    let deadline = Date().addingTimeInterval(timeout)
    while !condition() {
        if Date() > deadline { return false }
        usleep(1_000)
    }
    return true
}

/// Events a handler received, in order.
final class Received<Event: Sendable>: Sendable {
    private let events = Mutex<[Event]>([])
    func append(_ event: Event) { events.withLock { $0.append(event) } }
    var all: [Event] { events.withLock { $0 } }
}

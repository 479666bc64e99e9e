import Observation

/// The records a query selects, kept current as an `@Observable` model: SwiftUI views,
/// `withObservationTracking` and `Observations { }` see each change.
///
/// It works on either engine: `LiveQuery(query, in: store)` takes the SQLite `SQLiteStore` or a `PostgresStore`.
///
/// The records are read once when the model is made, then again after each commit (of this process or
/// another, or another host on PostgreSQL) that changes them, with the rules of `store.values(of:)`: never
/// back in time, no unchanged result twice, the last value after writes stop a fresh read. ``sequence`` is
/// the commit the records reflect.
///
/// **Its actor.** The model's properties change on one actor, `actor`, chosen when it is made: the main
/// actor unless you pass another. Read them on that actor (a debug build checks it). The class is not
/// isolated to the main actor at compile time, because Swift cannot make an actor the caller chooses a
/// class's isolation; instead every change runs in a method with an `isolated` parameter, so the compiler
/// still checks that the assignments happen on `actor`. That is why it is `Sendable`: `Observations { }`
/// takes a `@Sendable` closure that reads it, on the actor the closure is isolated to.
///
/// **Its lifetime.** It observes while it exists: releasing it removes its listener; closing the store ends
/// it (``isObserving`` becomes false). A failed read sets ``error`` and ends it too; the records stay as
/// they were. The actor must run for updates to arrive (the main actor of a command-line program runs while
/// an `async` `main` waits).
///
/// For example:
///
/// ```swift
/// @MainActor final class NodeList {
///     let nodes: LiveQuery<NodeVO>
///     init(store: SQLiteStore) {
///         nodes = LiveQuery(RecordQuery<NodeVO>().filter("x", .greaterThan, 100.0).order(by: "name"), in: store)
///     }
///     var names: [String] { nodes.records.map(\.name) }   // tracked by SwiftUI and Observations
/// }
/// ```
@Observable
public final class LiveQuery<R: Record>: @unchecked Sendable {
    // @unchecked: the stored properties below are set in `init`, before anything else can see the model, and
    // afterwards only in `apply(_:isolation:)`, whose `isolated` parameter is `actor`; the public getters read
    // them on `actor` (asserted). `actor`, `query` and `updates` are not changed after `init`.

    /// The records the query selects, in its order, as of ``sequence``. Read on ``actor``.
    public var records: [R] {
        actor.assertIsolated("LiveQuery is read on the actor it was made for")
        return currentRecords
    }

    /// The commit sequence ``records`` reflects: every commit up to it is in them, none after. Nil when the
    /// first read failed. Read on ``actor``.
    public var sequence: Int64? {
        actor.assertIsolated("LiveQuery is read on the actor it was made for")
        return currentSequence
    }

    /// The error of the read that failed, if one did; the model stopped observing then. Read on ``actor``.
    public var error: (any Error)? {
        actor.assertIsolated("LiveQuery is read on the actor it was made for")
        return currentError
    }

    /// Whether the model still follows the store: false once the store closed or a read failed. Read on
    /// ``actor``.
    public var isObserving: Bool {
        actor.assertIsolated("LiveQuery is read on the actor it was made for")
        return currentlyObserving
    }

    /// The query the model follows.
    @ObservationIgnored public let query: RecordQuery<R>

    /// The actor on which the model's properties change, and are read.
    @ObservationIgnored public let actor: any Actor

    private var currentRecords: [R] = []
    private var currentSequence: Int64?
    private var currentError: (any Error)?
    private var currentlyObserving = false
    @ObservationIgnored private let isSame: @Sendable ([R], [R]) -> Bool
    @ObservationIgnored private var updates: Task<Void, Never>?

    /// A model of the records `query` selects, compared by `isSame`, changing on `actor`: what each engine's
    /// `init(_:in:on:)` calls. `values` starts the engine's observed values of the query; `snapshot` then reads the
    /// records and the commit sequence they reflect, on the calling thread. When either throws, the model starts
    /// with no records and ``error`` set, and does not observe.
    package init(
        _ query: RecordQuery<R>, on actor: any Actor, isSame: @escaping @Sendable ([R], [R]) -> Bool,
        values: () throws -> ObservedValues<[R]>, snapshot: () throws -> (value: [R], position: SnapshotPosition)
    ) {
        self.query = query
        self.actor = actor
        self.isSame = isSame
        do {
            // The sequence first, then a read of the model's own, so that it has its records at once: the
            // sequence's first value was read at the same commit or an earlier one, and is skipped.
            let values = try values()
            let (records, position) = try snapshot()
            (currentRecords, currentSequence, currentlyObserving) = (records, position.sequence, true)
            updates = LiveUpdates.follow(values, for: self, on: actor) { model, update, isolation in
                model.apply(update, isolation: isolation)
            }
        } catch {
            currentError = error
        }
    }

    deinit {
        updates?.cancel()
    }

    /// Applies `update` on the model's actor: a value newer than the one held replaces it; the same records at a
    /// newer commit move only ``sequence``, so that views of ``records`` are not told of a change.
    private func apply(_ update: LiveUpdate<[R]>, isolation: isolated any Actor) {
        switch update {
        case .value(let observed):
            guard observed.sequence > currentSequence ?? -1 else { return }
            if !isSame(currentRecords, observed.value) { currentRecords = observed.value }
            currentSequence = observed.sequence
        case .failed(let error):
            currentError = error
            currentlyObserving = false
        case .ended:
            currentlyObserving = false
        }
    }
}

import Observation

/// One record, by primary key, kept current as an `@Observable` model: SwiftUI views,
/// `withObservationTracking` and `Observations { }` see each change.
///
/// It works on either engine: `LiveRecord(type, key: key, in: store)` takes the SQLite `SQLiteStore` or a
/// `PostgresStore`.
///
/// The record is read once when the model is made, then again after each commit (of this process or
/// another, or another host on PostgreSQL) that inserts, changes or deletes it, with the rules of
/// `store.value(of:key:)`. ``record`` is nil while there is no record with that key.
///
/// Its actor and its lifetime are those of ``LiveQuery``: its properties change on the actor chosen when it
/// is made (the main actor unless you pass another) and are read there; releasing it removes its listener;
/// closing the store, or a failed read (which sets ``error``), ends it.
///
/// For example:
///
/// ```swift
/// @MainActor final class ProfileHeader {
///     let me: LiveRecord<UserInfo>
///     init(store: SQLiteStore) { me = LiveRecord(UserInfo.self, key: "me", in: store) }
///     var title: String { me.record?.name ?? "Signed out" }
/// }
/// ```
@Observable
public final class LiveRecord<R: Record>: @unchecked Sendable {
    // @unchecked: the stored properties below are set in `init`, before anything else can see the model, and
    // afterwards only in `apply(_:isolation:)`, whose `isolated` parameter is `actor`; the public getters read
    // them on `actor` (asserted). `actor`, `key` and `updates` are not changed after `init`.

    /// The record, as of ``sequence``; nil while there is none with ``key``. Read on ``actor``.
    public var record: R? {
        actor.assertIsolated("LiveRecord is read on the actor it was made for")
        return currentRecord
    }

    /// The commit sequence ``record`` reflects: every commit up to it is in it, none after. Nil when the first
    /// read failed. Read on ``actor``.
    public var sequence: Int64? {
        actor.assertIsolated("LiveRecord is read on the actor it was made for")
        return currentSequence
    }

    /// The error of the read that failed, if one did; the model stopped observing then. Read on ``actor``.
    public var error: (any Error)? {
        actor.assertIsolated("LiveRecord is read on the actor it was made for")
        return currentError
    }

    /// Whether the model still follows the store: false once the store closed or a read failed. Read on
    /// ``actor``.
    public var isObserving: Bool {
        actor.assertIsolated("LiveRecord is read on the actor it was made for")
        return currentlyObserving
    }

    /// The primary key of the record the model follows.
    @ObservationIgnored public let key: R.Key

    /// The actor on which the model's properties change, and are read.
    @ObservationIgnored public let actor: any Actor

    private var currentRecord: R?
    private var currentSequence: Int64?
    private var currentError: (any Error)?
    private var currentlyObserving = false
    @ObservationIgnored private var updates: Task<Void, Never>?

    /// A model of the record whose primary key is `key`, changing on `actor`: what each engine's
    /// `init(_:key:in:on:)` calls. `values` starts the engine's observed value of the record; `snapshot` then reads
    /// the record and the commit sequence it reflects, on the calling thread. When either throws, the model starts
    /// with no record and ``error`` set, and does not observe.
    package init(
        key: R.Key, on actor: any Actor, values: () throws -> ObservedValues<R?>,
        snapshot: () throws -> (value: R?, position: SnapshotPosition)
    ) {
        self.key = key
        self.actor = actor
        do {
            // The sequence first, then a read of the model's own, so that it has its record at once: the
            // sequence's first value was read at the same commit or an earlier one, and is skipped.
            let values = try values()
            let (record, position) = try snapshot()
            (currentRecord, currentSequence, currentlyObserving) = (record, position.sequence, true)
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

    /// Applies `update` on the model's actor: a value newer than the one held replaces it; the same record at a
    /// newer commit moves only ``sequence``, so that views of ``record`` are not told of a change.
    private func apply(_ update: LiveUpdate<R?>, isolation: isolated any Actor) {
        switch update {
        case .value(let observed):
            guard observed.sequence > currentSequence ?? -1 else { return }
            if !RowEncoder.sameRecord(currentRecord, observed.value) { currentRecord = observed.value }
            currentSequence = observed.sequence
        case .failed(let error):
            currentError = error
            currentlyObserving = false
        case .ended:
            currentlyObserving = false
        }
    }
}

#if PostgreSQL
import Foundation
import Logging
import ObservableStoreCore
import StorePostgres
import Synchronization

/// What a ``PostgresStore`` observes with: the publisher of its listeners, the change feed, the table layouts the
/// log's row images are read with, and a connection of its own on which the store's own commits are read back
/// and published before `write` returns.
final class PostgresObservation: Sendable {
    /// Hands each logged commit to the store's listeners, once, in sequence order.
    let publisher: CommitPublisher<PostgresLogEntry>
    /// The captured tables' layouts, shared by every reader of the log.
    let layouts = PostgresTableLayouts()
    /// Reads every writer's commits; nil when the store does not track changes.
    let feed: PostgresChangeFeed?
    private let url: PostgresURL
    private let logger: Logger
    /// Used only while publishing (under the publisher's lock): one publication at a time.
    private let ownCommitConnection = Mutex<ServerConnection?>(nil)
    /// Own commits since the last pruning run.
    private let commitsSincePruning = Atomic<Int>(0)

    /// Starts observing `url`'s log for `registry`'s listeners: publication starts after the last sequence now
    /// assigned (history is not replayed), read on `connection`. When `stampsWaitingCommits`, the feed's polls also
    /// number commits that committed without being numbered (migration 0002).
    init(
        url: PostgresURL, registry: ListenerRegistry, configuration: PostgresStoreConfiguration, stampsWaitingCommits: Bool,
        on connection: ServerConnection
    ) throws {
        self.url = url
        self.logger = configuration.logger
        publisher = CommitPublisher<PostgresLogEntry>(registry: registry, logger: configuration.logger)
        publisher.startPublishing(after: try PostgresLogReader.head(on: connection))
        if configuration.tracksChanges {
            feed = PostgresChangeFeed(
                url: url, publisher: publisher, layouts: layouts, pollInterval: configuration.changeFeedPollInterval,
                stampsWaitingCommits: stampsWaitingCommits, logger: configuration.logger)
        } else {
            feed = nil
        }
        feed?.start()
    }

    /// Publishes the store's own commit `sequence` (and any other commit before it not yet published) to the
    /// listeners: immediate ones before this returns. When the log cannot be read, the feed publishes it later.
    func publishOwnCommit(_ sequence: Int64) {
        guard feed != nil else { return }
        let connection = ownCommitConnection.withLock { current -> ServerConnection? in
            if let current, !current.isClosed { return current }
            current = try? ServerConnection.connect(url, logger: logger)
            return current
        }
        guard let connection else { return }
        publisher.publishFromLog(PostgresLogReader(connection: connection, layouts: layouts, knownLast: sequence), newest: sequence)
    }

    /// Publishes the store's own commit `sequence` (and any commit before it not yet published), reading the log on
    /// `connection` with the caller suspended, then publishing what was read. When the log cannot be read, the feed
    /// publishes it later.
    nonisolated(nonsending) func publishOwnCommit(_ sequence: Int64, readingOn connection: ServerConnection) async {
        guard feed != nil else { return }
        var entries: [PostgresLogEntry] = []
        if publisher.hasListeners {
            let reader = PostgresLogReader(connection: connection, layouts: layouts)
            var after = publisher.lastPublishedSequence
            do {
                while after < sequence {
                    let page = try await reader.entries(after: after, through: sequence, limit: PostgresChangeFeed.pageSize)
                    guard let last = page.last else { break }
                    entries += page
                    after = last.sequence
                }
            } catch {
                logger.warning("cannot read the store's own commit from the log; the feed publishes it", metadata: ["error": "\(error)"])
                return
            }
        }
        publisher.publishFromLog(PrefetchedLog(entries: entries, last: sequence), newest: sequence)
    }

    /// Counts an own commit; true once every `interval` commits (time to prune the log).
    func pruningIsDue(every interval: Int) -> Bool {
        commitsSincePruning.add(1, ordering: .relaxed).newValue % max(1, interval) == 0
    }

    /// Stops the feed and closes the connections.
    func stop() {
        feed?.stop()
        ownCommitConnection.withLock { connection in
            connection?.close()
            connection = nil
        }
    }
}
#endif

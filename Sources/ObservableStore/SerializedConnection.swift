import Dispatch
import StoreSQLite

/// The writer connection and the serial queue that is the only place it is used.
///
/// `@unchecked Sendable`: the wrapped `Connection` is not thread-safe (it is opened in SQLite's
/// multi-thread mode). It is touched only by closures running on `queue`, a serial queue, so two
/// threads never use it at once. `sync` refuses to run from `queue` itself (a nested write would
/// deadlock) and after `close()`.
final class SerializedConnection: @unchecked Sendable {
    private let queue: DispatchQueue
    private let queueKey = DispatchSpecificKey<Bool>()
    private let connection: Connection
    private var isClosed = false  // only read and written on `queue`

    init(_ connection: Connection, label: String) {
        self.connection = connection
        self.queue = DispatchQueue(label: label)
        queue.setSpecific(key: queueKey, value: true)
    }

    /// Whether the caller is running on this connection's queue (inside a write).
    var isOnQueue: Bool { DispatchQueue.getSpecific(key: queueKey) == true }

    /// Runs `body` with the connection on the queue and waits for it.
    func sync<T>(_ body: (Connection) throws -> T) throws -> T {
        guard !isOnQueue else {
            throw StoreError(
                .transactionMisuse,
                "write called inside a write: use the Transaction you were given, or a savepoint")
        }
        return try queue.sync {
            guard !isClosed else { throw StoreError(.transactionMisuse, "the store is closed") }
            return try body(connection)
        }
    }

    /// Runs `body` with the connection on the queue without blocking the caller's thread.
    func async<T: Sendable>(_ body: @escaping @Sendable (Connection) throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { continuation in
            queue.async {
                guard !self.isClosed else {
                    return continuation.resume(throwing: StoreError(.transactionMisuse, "the store is closed"))
                }
                continuation.resume(with: Result { try body(self.connection) })
            }
        }
    }

    /// Closes the connection after the work already queued. Later calls throw.
    func close() {
        let work = {
            guard !self.isClosed else { return }
            self.isClosed = true
            self.connection.close()
        }
        if isOnQueue { work() } else { queue.sync(execute: work) }
    }
}

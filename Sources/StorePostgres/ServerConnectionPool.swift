#if PostgreSQL
import Foundation
import Logging
import ObservableStoreCore

/// Connections to one database, opened when needed (at most ``maximum``) and handed to one caller at a time.
/// A connection that fails with ``StoreError/Code/unavailable`` or is closed is dropped, not reused.
package final class ServerConnectionPool: @unchecked Sendable {
    /// The database.
    package let url: PostgresURL
    /// The most connections open at once.
    package let maximum: Int
    private let logger: Logger
    private let condition = NSCondition()
    private var idle: [ServerConnection] = []
    private var openCount = 0
    private var isClosed = false

    /// A pool for `url`; no connection is opened yet.
    package init(url: PostgresURL, maximum: Int, logger: Logger, checkOutTimeout: Duration = .seconds(30)) {
        self.url = url
        self.checkOutTimeout = checkOutTimeout
        self.maximum = max(1, maximum)
        self.logger = logger
    }

    /// How long a caller waits for a connection when ``maximum`` are in use before it gets
    /// ``StoreError/Code/busy`` (a read inside a write on every connection at once would otherwise wait for ever).
    package let checkOutTimeout: Duration

    /// Runs `body` with a connection of the pool, waiting for one when ``maximum`` are in use.
    package func withConnection<T>(_ body: (ServerConnection) throws -> T) throws -> T {
        let connection = try checkOut()
        do {
            let value = try body(connection)
            checkIn(connection, reusable: !connection.isClosed)
            return value
        } catch let error as StoreError where error.code == .unavailable {
            checkIn(connection, reusable: false)
            throw error
        } catch {
            checkIn(connection, reusable: !connection.isClosed)
            throw error
        }
    }

    /// Closes every idle connection; connections in use close when they come back. Later calls throw.
    package func close() {
        condition.lock()
        isClosed = true
        let closing = idle
        idle = []
        openCount -= closing.count
        condition.broadcast()
        condition.unlock()
        for connection in closing { connection.close() }
    }

    private func checkOut() throws -> ServerConnection {
        let (seconds, attoseconds) = checkOutTimeout.components
        let deadline = Date().addingTimeInterval(Double(seconds) + Double(attoseconds) / 1e18)
        condition.lock()
        while true {
            if isClosed {
                condition.unlock()
                throw StoreError(.transactionMisuse, "the store is closed")
            }
            if let connection = idle.popLast() {
                condition.unlock()
                return connection
            }
            if openCount < maximum { break }
            guard condition.wait(until: deadline) || Date() < deadline else {
                condition.unlock()
                throw StoreError(
                    .busy, "all \(maximum) connections to \(url) stayed in use for \(checkOutTimeout) (a read inside a write on each?)")
            }
        }
        openCount += 1
        condition.unlock()
        do {
            return try ServerConnection.connect(url, logger: logger)
        } catch {
            condition.lock()
            openCount -= 1
            condition.signal()
            condition.unlock()
            throw error
        }
    }

    private func checkIn(_ connection: ServerConnection, reusable: Bool) {
        condition.lock()
        let keep = reusable && !isClosed
        if keep { idle.append(connection) } else { openCount -= 1 }
        condition.signal()
        condition.unlock()
        if !keep { connection.close() }
    }
}
#endif

import Logging
import ObservableStoreCore
import StoreSQLite

/// A write's way from BEGIN to the listeners, on the writer connection: the transaction, the check for a
/// foreign write, the change log's row before COMMIT, COMMIT, the publication of the commit, and pruning
/// the log when due. ``SQLiteStore`` takes the writer's turn (``SerializedWriter``) and hands it the ``Writer``;
/// everything here runs with the writer's lock held.
///
/// Every transaction of the writer (a write, pruning, the logging of a foreign write) goes through
/// ``transaction(on:seenAt:_:)``, which tells the writer's ``WriteObserver``s (the change log, the foreign-write
/// detector, the pruning schedule) before COMMIT, after it, or after a rollback.
///
/// docs/ARCHITECTURE.md follows a local write through it, file by file.
struct CommitPipeline: Sendable {
    /// Hands each logged commit to the listeners.
    let publisher: CommitPublisher<LoggedCommit>
    /// How much of the log to keep, and how often to prune.
    let retention: RetentionPolicy
    let logger: Logger
    /// Whether the store watches for writes of programs that do not log (it has a change feed): those
    /// writes are then logged as markers, and a write that logs nothing still tells other processes it was
    /// the library's.
    let watchesForeignWrites: Bool

    /// Runs `body` as one write transaction on `writer` (whose lock the caller holds) and commits: logs a
    /// foreign write first if there was one, appends the commit's changes to the log, commits, publishes
    /// them, and prunes the log when due. If `body` throws, everything is rolled back and nothing is published.
    func run<T>(on writer: Writer, origin: String?, _ body: (SQLiteTransaction) throws -> T) throws -> CommittedWrite<T> {
        let connection = writer.connection
        writer.capture.reset()
        writer.sizeCapturePieces()
        let transaction = SQLiteTransaction(
            connection: connection, kind: .write, capture: writer.capture, timestamps: writer.timestamps,
            recordStatements: writer.recordStatements)
        defer {
            transaction.end()
            writer.capture.reset()
        }
        return try self.transaction(on: writer) {
            let changesBefore = connection.totalChanges
            let schemaAtStart = try writer.changeLog.schemaVersionAtStart(on: connection)
            let result = try body(transaction)
            // A ROLLBACK-class failure (RAISE(ROLLBACK), OR ROLLBACK, a full disk) ends the transaction even
            // when the closure caught the error: nothing may be logged or committed then.
            try transaction.checkActive()
            if writer.capture.wroteStoreMeta { writer.foreignWrites.noteBookkeepingWrite() }
            let logged = try writer.changeLog.append(
                writer.capture, schemaAtStart: schemaAtStart, mayHaveChangedSchema: transaction.mayHaveChangedSchema,
                origin: origin, on: connection)
            if logged == nil, watchesForeignWrites, connection.totalChanges != changesBefore || transaction.mayHaveWrittenBesidesRows {
                // Rows changed but nothing is logged (rolled-back savepoints, internal tables), or a statement
                // ran that may change the file without changing rows (a PRAGMA that writes the header): the
                // file may still change, so tell other processes it was the library, not a foreign writer.
                try ChangeLog.bumpBookkeeping(on: connection)
                writer.foreignWrites.noteBookkeepingWrite()
            }
            if let logged {
                writer.foreignWrites.didAppend(logged.sequence)
                writer.pruning.didLog()
            }
            return (result, logged)
        }
    }

    /// The one place the writer's transactions begin and end. In a transaction on `writer` (whose lock the caller
    /// holds): logs a foreign write first if there was one (see ``logForeignWriteIfAny(on:seenAt:)``), runs `body`,
    /// tells the writer's observers before COMMIT, commits, tells them after it, publishes the foreign write's marker
    /// and then what `body` logged, and prunes the log when due. If anything throws, the transaction is rolled back,
    /// the observers are told so, and nothing is published.
    private func transaction<T>(
        on writer: Writer, seenAt position: LogPosition? = nil, _ body: () throws -> (value: T, logged: LoggedCommit?)
    ) throws -> CommittedWrite<T> {
        let connection = writer.connection
        var foreignWrite: LoggedCommit?
        let (value, logged): (T, LoggedCommit?)
        do {
            (value, logged) = try connection.inTransaction {
                foreignWrite = try logForeignWriteIfAny(on: writer, seenAt: position)
                let outcome = try body()
                for observer in writer.observers { try observer.writeWillCommit(on: connection) }
                return outcome
            }
        } catch {
            for observer in writer.observers { observer.writeDidRollBack() }
            throw error
        }
        for observer in writer.observers { observer.writeDidCommit(on: connection) }
        for commit in [foreignWrite, logged].compactMap(\.self) {
            publisher.publishOwn(commit, log: ChangeLogReader(connection: connection))
        }
        if writer.pruning.takeIfDue(every: retention.pruneInterval) { pruneAfterCommit(on: writer) }
        return CommittedWrite(value: value, sequence: logged?.sequence)
    }

    /// In a write transaction of a store that watches for foreign writes: when a foreign writer changed the file since
    /// this writer's last commit (``ForeignWriteDetector/check(on:)``), or, given `position`, when the log
    /// still stands where the feed saw the file change (``ForeignWriteDetector/logStands(at:on:)``), logs a
    /// marker for it and returns it, to be published before anything else the transaction commits.
    private func logForeignWriteIfAny(on writer: Writer, seenAt position: LogPosition? = nil) throws -> LoggedCommit? {
        let detector = writer.foreignWrites
        guard watchesForeignWrites,
            try position.map({ try detector.logStands(at: $0, on: writer.connection) }) ?? detector.check(on: writer.connection)
        else { return nil }
        let marker = try ChangeLog.appendMarker(.externalChange, origin: nil, on: writer.connection)
        writer.foreignWrites.didAppend(marker.sequence)
        return marker
    }

    /// Takes the writer's turn and, in a transaction of its own, logs and publishes a foreign write if there
    /// was one. Called by the change feed:
    /// - with `position`, when it saw the file change while the log stood there: a foreign write if the log
    ///   still stands there (if it moved, whoever moved it logged or hid the write, and the feed publishes
    ///   from the log). When logging fails, this process's listeners are still told, without a log row.
    /// - with nil, once this process stopped writing: a foreign write if the file changed since the writer's
    ///   last commit with the log standing still (``ForeignWriteDetector/check(on:)``); the feed may have
    ///   taken it for that commit. A failure is logged: the next write checks again.
    func logForeignWrite(seenAt position: LogPosition?, through serializedWriter: SerializedWriter) {
        do {
            // Not counted as this process's write: the feed would take its end for a new burst of writes.
            try serializedWriter.sync(countsAsWrite: false) { writer in
                _ = try transaction(on: writer, seenAt: position) { ((), nil) }
            }
        } catch let error as StoreError where error.code == .transactionMisuse {
            return  // the store closed meanwhile: nobody is left to tell
        } catch {
            logger.warning("could not log a foreign write", metadata: ["error": "\(error)"])
            if position != nil { publisher.publishExternalChange() }
        }
    }

    /// Prunes the change log in its own transaction on the writer. A failure is logged, not thrown:
    /// the commit that triggered it succeeded.
    private func pruneAfterCommit(on writer: Writer) {
        let transaction = SQLiteTransaction(connection: writer.connection, kind: .write, capture: nil)
        defer { transaction.end() }
        do {
            _ = try self.transaction(on: writer) {
                let deleted = try SQLiteStore.prune(transaction, policy: retention)
                writer.foreignWrites.noteBookkeepingWrite()
                return (deleted, nil)
            }
        } catch {
            logger.warning("pruning the change log failed", metadata: ["error": "\(error)"])
        }
    }
}

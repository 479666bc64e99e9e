import Foundation
import ObservableStoreCore
import TestScheduling
import Testing

@testable import StoreSQLite

// A write that fails inside COMMIT under a file-size limit gives SQLITE_IOERR_WRITE (778) with
// `sqlite3_system_errno` at 0, the cause (EFBIG) left only in the thread's errno. Which errno an error keeps, and
// when it counts as out of space. (The real failure needs a file-size limit, so it runs in child processes:
// BadInputTests.aFileSizeLimitInAWriterProcess… and StoreCtlBadInputTableTests.aFullDiskAtTheCommit….)

@Suite(.timeLimit(.minutes(10)), .threadPerTest) struct SQLiteErrorTests {
    static let ioErrWrite: Int32 = 778  // SQLITE_IOERR_WRITE
    static let ioErrFsync: Int32 = 1034  // SQLITE_IOERR_FSYNC

    @Test(arguments: [EFBIG, ENOSPC, EDQUOT])
    func anIOErrorWhoseThreadErrnoIsOutOfSpaceIsOutOfSpace(_ cause: Int32) {
        for code in [Self.ioErrWrite, Self.ioErrFsync] {
            let systemErrno = SQLiteError.systemErrno(reported: 0, threadErrno: cause, extendedCode: code)
            #expect(systemErrno == cause)
            #expect(SQLiteError(extendedCode: code, message: "disk I/O error", systemErrno: systemErrno).isOutOfSpace)
        }
    }

    @Test func sqliteOwnRecordWinsOverTheThreadErrno() {
        #expect(SQLiteError.systemErrno(reported: EIO, threadErrno: EFBIG, extendedCode: Self.ioErrWrite) == EIO)
        #expect(!SQLiteError(extendedCode: Self.ioErrWrite, message: "disk I/O error", systemErrno: EIO).isOutOfSpace)
        #expect(SQLiteError.systemErrno(reported: ENOSPC, threadErrno: 0, extendedCode: Self.ioErrWrite) == ENOSPC)
    }

    @Test func otherFailuresIgnoreTheThreadErrno() {
        // A constraint failure while errno happens to hold EFBIG (left by some earlier call) is not a full disk.
        let constraint: Int32 = 2067  // SQLITE_CONSTRAINT_UNIQUE
        #expect(SQLiteError.systemErrno(reported: 0, threadErrno: EFBIG, extendedCode: constraint) == 0)
        #expect(!SQLiteError(extendedCode: constraint, message: "UNIQUE constraint failed", systemErrno: 0).isOutOfSpace)
        #expect(!SQLiteError(extendedCode: Self.ioErrWrite, message: "disk I/O error", systemErrno: EIO).isOutOfSpace)
        // SQLITE_FULL is out of space whatever errno says.
        #expect(SQLiteError(extendedCode: 13, message: "database or disk is full").isOutOfSpace)
    }
}

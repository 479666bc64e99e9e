import ObservableStore

/// storectl's exit codes (STORECTL.md C.2). They never change; `storectl help exit-codes` lists them.
enum ExitCodes {
    static let success: Int32 = 0
    static let `internal`: Int32 = 1
    static let usage: Int32 = 2
    static let notFound: Int32 = 3
    static let constraint: Int32 = 4
    static let busy: Int32 = 5
    static let migrationNeeded: Int32 = 6
    static let schemaTooNew: Int32 = 7
    static let migrationConflict: Int32 = 8
    static let integrity: Int32 = 9
    static let aborted: Int32 = 10
    static let unavailable: Int32 = 11

    /// The table printed by `storectl help exit-codes`.
    static let table = """
        0    success, including "nothing to do"
        1    unexpected or internal error (I/O, bug)
        2    usage error: bad flag or argument, unparsable input (the error names the input line)
        3    not found: store file, table, record id, backup source; or not a storectl store
        4    constraint violation (UNIQUE, NOT NULL, CHECK, foreign key); the whole command is rolled back
        5    busy: the lock was not acquired within the timeout (database or migration lock)
        6    migration needed: the schema is older than storectl (or migrate status --exit-code found pending files)
        7    the schema is newer than storectl: refused
        8    migration history conflict: checksum mismatch, applied version without a file, out-of-order or duplicate version, failed run
        9    check found integrity problems
        10   aborted: confirmation declined, or a destructive command on a non-TTY without --yes
        11   the database server (--db postgres://…) cannot be reached, refused the login, or closed the connection
             (commit_unknown: it closed during COMMIT, so the write may have committed)
        130  interrupted (SIGINT)
        141  output pipe closed (SIGPIPE), e.g. under `| head`
        """

    /// The exit code for a store error.
    static func code(for error: StoreError) -> Int32 {
        switch error.code {
        case .invalidInput, CLIError.usageCode, CLIError.existsCode: usage
        case .notFound, .notAStore, .cannotOpen: notFound
        case .constraint: constraint
        case .busy: busy
        case .migrationNeeded: migrationNeeded
        case .schemaTooNew: schemaTooNew
        case .migrationConflict: migrationConflict
        case .corrupt, CLIError.integrityCode: integrity
        case CLIError.abortedCode, CLIError.confirmationCode: aborted
        case .unavailable, .commitUnknown: unavailable
        default: `internal`
        }
    }
}

/// storectl's own error codes, carried in a `StoreError` so that one path prints every failure.
enum CLIError {
    static let usageCode = StoreError.Code(rawValue: "usage")
    static let existsCode = StoreError.Code(rawValue: "exists")
    static let integrityCode = StoreError.Code(rawValue: "integrity")
    static let abortedCode = StoreError.Code(rawValue: "aborted")
    static let confirmationCode = StoreError.Code(rawValue: "confirmation_required")

    static func usage(_ message: String) -> StoreError { StoreError(usageCode, message) }
    static func exists(_ message: String) -> StoreError { StoreError(existsCode, message) }
}

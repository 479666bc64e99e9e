import ObservableStore

/// storectl's exit codes (STORECTL.md C.2). They never change.
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

    /// The exit code for a store error.
    static func code(for error: StoreError) -> Int32 {
        switch error.code {
        case .invalidInput: usage
        case .notFound, .notAStore, .cannotOpen: notFound
        case .constraint: constraint
        case .busy: busy
        case .migrationNeeded: migrationNeeded
        case .schemaTooNew: schemaTooNew
        case .migrationConflict: migrationConflict
        case .corrupt: integrity
        default: `internal`
        }
    }
}

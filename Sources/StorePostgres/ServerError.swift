#if PostgreSQL
import ObservableStoreCore
import PostgresNIO

/// PostgreSQL's failures as the core's ``StoreError``: one line naming what went wrong, with the SQLSTATE.
enum ServerError {
    /// A failed connection attempt.
    static func connecting(to url: PostgresURL, _ error: any Error) -> StoreError {
        if let error = error as? PSQLError {
            if let state = error.serverInfo?[.sqlState], let message = error.serverInfo?[.message] {
                if state == "3D000" { return StoreError(.notFound, "\(url): \(message)") }
                return StoreError(.unavailable, "\(url): \(message) (SQLSTATE \(state))")
            }
            let reason = error.underlying.map { String(describing: $0) } ?? error.code.description
            return StoreError(.unavailable, "cannot connect to \(url): \(reason)")
        }
        return StoreError(.unavailable, "cannot connect to \(url): \(error)")
    }

    /// A failed statement.
    static func failed(sql: String, _ error: any Error, url: PostgresURL) -> StoreError {
        guard let error = error as? PSQLError else {
            return StoreError(.internal, String(describing: error), sql: sql)
        }
        guard let state = error.serverInfo?[.sqlState], let message = error.serverInfo?[.message] else {
            switch error.code {
            case .serverClosedConnection, .clientClosedConnection, .connectionError, .uncleanShutdown:
                return StoreError(.unavailable, "the connection to \(url) was lost (\(error.code))", sql: sql)
            default:
                return StoreError(.internal, "\(error.code) from \(url)", sql: sql)
            }
        }
        var text = message
        if let detail = error.serverInfo?[.detail] { text += ": \(detail)" }
        text += " (SQLSTATE \(state))"
        return StoreError(code(forSQLState: state), text, sql: sql)
    }

    /// The store's code for a SQLSTATE (https://www.postgresql.org/docs/current/errcodes-appendix.html).
    static func code(forSQLState state: String) -> StoreError.Code {
        switch state {
        case "40001", "40P01", "55P03", "57014": return .busy
        case "42P01", "42703", "42883", "3D000": return .notFound
        case "57P01", "57P02", "57P03", "08000", "08003", "08006": return .unavailable
        case "53100": return .diskFull
        case "25006": return .readOnly
        default:
            switch state.prefix(2) {
            case "23": return .constraint
            case "22", "42", "2F", "P0": return .invalidInput
            case "25", "2D": return .transactionMisuse
            default: return .internal
            }
        }
    }
}
#endif

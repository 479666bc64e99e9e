extension DatabaseValue {
    /// The value as it reads in a record path such as `nodes/42` or `user_info/me`.
    package var keyText: String {
        switch self {
        case .text(let text): text
        case .integer(let value): String(value)
        default: description
        }
    }
}

/// One SQL migration file: `NNNN_snake_case_name.sql`, applied once, in its own transaction.
///
/// For example:
///
/// ```swift
/// let migration = try Migration(fileName: "0001_create_invoices.sql", sql: "CREATE TABLE invoices (...);")
/// ```
public struct Migration: Sendable, Equatable {
    /// The number that orders and identifies the migration (the `NNNN` of the file name).
    public let version: Int
    /// The descriptive part of the file name (informational; renaming it is not a conflict).
    public let name: String
    /// The SQL text.
    public let sql: String
    /// SHA-256, in hex, of the SQL with CRLF turned into LF and a leading BOM removed.
    public let checksum: String
    /// False when the file starts with `-- storectl: no-transaction` (for `PRAGMA journal_mode`, `VACUUM`).
    public let runsInTransaction: Bool

    /// The first line that opts a file out of the per-file transaction.
    public static let noTransactionDirective = "-- storectl: no-transaction"

    /// Makes a migration from its parts.
    public init(version: Int, name: String, sql: String) {
        self.version = version
        self.name = name
        self.sql = sql
        self.checksum = Migration.checksum(of: sql)
        let firstLine = Migration.normalized(sql).prefix { $0 != "\n" }
        self.runsInTransaction = firstLine.trimmingTrailingWhitespace != Migration.noTransactionDirective
    }

    /// Makes a migration from a file name `NNNN_snake_case_name[.sql]` and its text.
    ///
    /// Throws ``/ObservableStoreCore/StoreError/Code/invalidInput`` naming the file when the name does not have that form.
    public init(fileName: String, sql: String) throws {
        var stem = Substring(fileName)
        if stem.hasSuffix(".sql") { stem = stem.dropLast(4) }
        let digits = stem.prefix { $0.isASCII && $0.isNumber }
        let rest = stem.dropFirst(digits.count)
        guard digits.count == 4, let version = Int(digits), version > 0, rest.first == "_",
            rest.count > 1, rest.dropFirst().allSatisfy({ $0.isASCII && ($0.isLowercase || $0.isNumber || $0 == "_") })
        else {
            throw StoreError(
                .invalidInput, "migration file \(fileName): name must be NNNN_snake_case_name.sql, starting at 0001")
        }
        self.init(version: version, name: String(rest.dropFirst()), sql: sql)
    }

    /// The file's identifier, e.g. "0007_add_tags".
    public var id: String { Migration.format(version) + "_" + name }

    /// The checksum of `sql` as the history records it: SHA-256 hex of LF-normalised, BOM-stripped UTF-8.
    public static func checksum(of sql: String) -> String {
        SHA256.hex(normalized(sql).utf8)
    }

    /// `version` as four digits, e.g. "0007".
    public static func format(_ version: Int) -> String {
        let digits = String(version)
        return digits.count >= 4 ? digits : String(repeating: "0", count: 4 - digits.count) + digits
    }

    static func normalized(_ sql: String) -> String {
        var text = sql
        if text.hasPrefix("\u{FEFF}") { text.removeFirst() }
        // Swift treats "\r\n" as one Character; replace on the scalar level.
        var scalars = String.UnicodeScalarView()
        var previousWasCR = false
        for scalar in text.unicodeScalars {
            if previousWasCR && scalar != "\n" { scalars.append("\r") }
            previousWasCR = scalar == "\r"
            if !previousWasCR { scalars.append(scalar) }
        }
        if previousWasCR { scalars.append("\r") }
        return String(scalars)
    }
}

extension Substring {
    var trimmingTrailingWhitespace: Substring {
        var text = self
        while let last = text.last, last.isWhitespace { text.removeLast() }
        return text
    }
}

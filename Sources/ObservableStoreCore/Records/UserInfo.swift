import Foundation

/// The user several views show (table `user_info`): the record of the property-listener pattern.
///
/// For example:
///
/// ```swift
/// try store.repository(UserInfo.self).upsert(UserInfo(id: "me", name: "Ada", hairColor: "brown"))
/// ```
public struct UserInfo: Record, Equatable, Hashable {
    /// "user_info".
    public static let tableName = "user_info"
    /// The primary key type.
    public typealias Key = String

    /// The user's id, chosen by the application (`TEXT PRIMARY KEY`).
    public var id: String
    /// The user's name.
    public var name: String
    /// Hair colour, if known.
    public var hairColor: String?
    /// When the row was created (stored to the millisecond).
    public var createdAt: Date
    /// When the row last changed (stored to the millisecond).
    public var updatedAt: Date

    /// Makes a user; timestamps default to now, truncated to milliseconds as stored.
    public init(id: String, name: String, hairColor: String? = nil, createdAt: Date = Date(), updatedAt: Date? = nil) {
        self.id = id
        self.name = name
        self.hairColor = hairColor
        self.createdAt = createdAt.truncatedToMilliseconds
        self.updatedAt = (updatedAt ?? createdAt).truncatedToMilliseconds
    }

    /// The user's columns: `RecordQuery<UserInfo>().filter(.hairColor, equals: "brown")`.
    public typealias Columns = CodingKeys

    /// The columns of `user_info`, one case per stored property (the column names are the raw values).
    public enum CodingKeys: String, CodingKey {
        /// `id TEXT PRIMARY KEY`
        case id
        /// `name TEXT NOT NULL`
        case name
        /// `hair_color TEXT`
        case hairColor = "hair_color"
        /// `created_at TEXT NOT NULL`
        case createdAt = "created_at"
        /// `updated_at TEXT NOT NULL`
        case updatedAt = "updated_at"
    }

    /// The user's columns as typed properties, for key-path filters: `RecordQuery<UserInfo>().filter(\.name, equals: "Ada")`.
    public struct ColumnPaths: Sendable {
        /// `id`
        public var id: TypedColumn<String> { TypedColumn(Columns.id) }
        /// `name`
        public var name: TypedColumn<String> { TypedColumn(Columns.name) }
        /// `hair_color`
        public var hairColor: TypedColumn<String> { TypedColumn(Columns.hairColor) }
        /// `created_at`
        public var createdAt: TypedColumn<Date> { TypedColumn(Columns.createdAt) }
        /// `updated_at`
        public var updatedAt: TypedColumn<Date> { TypedColumn(Columns.updatedAt) }
    }

    /// The user's column paths.
    public static var columnPaths: ColumnPaths { ColumnPaths() }
}

extension UserInfo: RowDecodable {
    /// Reads a user from a fetched row (the fast path; `Decodable` reads the same columns the same way).
    public init(row: RowReader) throws {
        id = try row.decode(String.self, "id")
        name = try row.decode(String.self, "name")
        hairColor = try row.decodeIfPresent(String.self, "hair_color")
        createdAt = try row.decode(Date.self, "created_at")
        updatedAt = try row.decode(Date.self, "updated_at")
    }
}

extension UserInfo: RowEncodable {
    /// Writes the user's columns (the fast path; `Encodable` writes the same columns the same way).
    public func encode(to row: inout RowWriter) {
        row.encode(id, "id")
        row.encode(name, "name")
        row.encode(hairColor, "hair_color")
        row.encode(createdAt, "created_at")
        row.encode(updatedAt, "updated_at")
    }
}

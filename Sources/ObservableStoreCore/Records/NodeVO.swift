import Foundation

/// A node of a node editor (table `nodes`): the record of the Presentation Model pattern.
///
/// For example:
///
/// ```swift
/// let node = try store.repository(NodeVO.self).insert(NodeVO(name: "Start", x: 10, y: 20))
/// print(node.id!)   // assigned by SQLite
/// ```
public struct NodeVO: Record, Equatable, Hashable {
    /// "nodes".
    public static let tableName = "nodes"
    /// The primary key type.
    public typealias Key = Int64

    /// The key SQLite assigns on insert (`INTEGER PRIMARY KEY`); nil before the first insert.
    public var id: Int64?
    /// The node's label.
    public var name: String
    /// Horizontal position.
    public var x: Double
    /// Vertical position.
    public var y: Double
    /// Fill colour as `#RRGGBB`.
    public var color: String
    /// Width in points (not negative).
    public var width: Double
    /// Height in points (not negative).
    public var height: Double
    /// When the node was created (stored to the millisecond).
    public var createdAt: Date
    /// When the node last changed (stored to the millisecond).
    public var updatedAt: Date

    /// The default fill colour.
    public static let defaultColor = "#4A90D9"

    /// Makes a node; timestamps default to now, truncated to milliseconds as stored.
    public init(
        id: Int64? = nil, name: String, x: Double, y: Double, color: String = NodeVO.defaultColor,
        width: Double = 120, height: Double = 60, createdAt: Date = Date(), updatedAt: Date? = nil
    ) {
        self.id = id
        self.name = name
        self.x = x
        self.y = y
        self.color = color
        self.width = width
        self.height = height
        self.createdAt = createdAt.truncatedToMilliseconds
        self.updatedAt = (updatedAt ?? createdAt).truncatedToMilliseconds
    }

    /// Sets ``id`` from the rowid SQLite assigned.
    public mutating func didInsert(rowID: Int64) { id = rowID }

    /// The node's columns: `RecordQuery<NodeVO>().filter(.x, .greaterThan, 12).order(by: .name)`.
    public typealias Columns = CodingKeys

    /// The columns of `nodes`, one case per stored property (the column names are the raw values).
    public enum CodingKeys: String, CodingKey {
        /// `id INTEGER PRIMARY KEY`
        case id
        /// `name TEXT NOT NULL`
        case name
        /// `x REAL NOT NULL`
        case x
        /// `y REAL NOT NULL`
        case y
        /// `color TEXT NOT NULL`
        case color
        /// `width REAL NOT NULL`
        case width
        /// `height REAL NOT NULL`
        case height
        /// `created_at TEXT NOT NULL`
        case createdAt = "created_at"
        /// `updated_at TEXT NOT NULL`
        case updatedAt = "updated_at"
    }

    /// The node's columns as typed properties, for key-path filters: `RecordQuery<NodeVO>().filter(\.x, .greaterThan, 12)`.
    public struct ColumnPaths: Sendable {
        /// `id`
        public var id: TypedColumn<Int64> { TypedColumn(Columns.id) }
        /// `name`
        public var name: TypedColumn<String> { TypedColumn(Columns.name) }
        /// `x`
        public var x: TypedColumn<Double> { TypedColumn(Columns.x) }
        /// `y`
        public var y: TypedColumn<Double> { TypedColumn(Columns.y) }
        /// `color`
        public var color: TypedColumn<String> { TypedColumn(Columns.color) }
        /// `width`
        public var width: TypedColumn<Double> { TypedColumn(Columns.width) }
        /// `height`
        public var height: TypedColumn<Double> { TypedColumn(Columns.height) }
        /// `created_at`
        public var createdAt: TypedColumn<Date> { TypedColumn(Columns.createdAt) }
        /// `updated_at`
        public var updatedAt: TypedColumn<Date> { TypedColumn(Columns.updatedAt) }
    }

    /// The node's column paths.
    public static var columnPaths: ColumnPaths { ColumnPaths() }
}

extension NodeVO: RowDecodable {
    /// Reads a node from a fetched row (the fast path; `Decodable` reads the same columns the same way).
    public init(row: RowReader) throws {
        id = try row.decodeIfPresent(Int64.self, "id")
        name = try row.decode(String.self, "name")
        x = try row.decode(Double.self, "x")
        y = try row.decode(Double.self, "y")
        color = try row.decode(String.self, "color")
        width = try row.decode(Double.self, "width")
        height = try row.decode(Double.self, "height")
        createdAt = try row.decode(Date.self, "created_at")
        updatedAt = try row.decode(Date.self, "updated_at")
    }
}

extension NodeVO: RowEncodable {
    /// Writes the node's columns (the fast path; `Encodable` writes the same columns the same way).
    public func encode(to row: inout RowWriter) {
        row.encode(id, "id")
        row.encode(name, "name")
        row.encode(x, "x")
        row.encode(y, "y")
        row.encode(color, "color")
        row.encode(width, "width")
        row.encode(height, "height")
        row.encode(createdAt, "created_at")
        row.encode(updatedAt, "updated_at")
    }
}

extension Date {
    /// The date rounded down to the millisecond, the precision the store keeps.
    public var truncatedToMilliseconds: Date {
        Date(timeIntervalSince1970: Double(Timestamp.milliseconds(of: self)) / 1000)
    }
}

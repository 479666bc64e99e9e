import ObservableStoreCore

/// Makes a struct a fast ``/ObservableStoreCore/Record`` of `table`: generates what `NodeVO` writes by hand.
///
/// From the struct's stored properties it writes `CodingKeys` (snake_case column names: `createdAt` is
/// `created_at`; ``Column(_:)`` renames one), `Columns` (typed filters: `.filter(.title, equals: "x")`),
/// `ColumnPaths` (key-path filters: `.filter(\.title, equals: "x")`), ``/ObservableStoreCore/RowDecodable``'s
/// `init(row:)` and ``/ObservableStoreCore/RowEncodable``'s `encode(to:)` (fetches and writes without
/// `Codable`'s containers), `tableName`, `primaryKey`, `Key` (the key property's type), and, for an
/// optional `Int64` or `Int` key, `didInsert(rowID:)`.
///
/// For example:
///
/// ```swift
/// import ObservableStore
/// import StoreRecord
///
/// @Record(table: "notes")
/// struct Note: Equatable {
///     var id: Int64?
///     var title: String
///     @Column("body_text") var body: String?
///     var createdAt: Date
/// }
///
/// let recent = try store.repository(Note.self).fetchAll(RecordQuery().filter(\.createdAt, .greaterThan, since))
/// ```
///
/// Every stored property's type must be ``/ObservableStoreCore/DatabaseValueConvertible`` (or an optional of
/// one) and written out. Static, computed and `lazy` properties, and `let`s with an initial value, are not
/// columns. The table itself comes from a migration.
///
/// - Parameters:
///   - table: The table's name.
///   - primaryKey: The stored property that is the primary key; `id` by default.
@attached(member, names: named(CodingKeys))
@attached(
    extension, conformances: ObservableStoreCore.Record, ObservableStoreCore.RowDecodable,
    ObservableStoreCore.RowEncodable,
    names: named(tableName), named(primaryKey), named(Key), named(Columns), named(ColumnPaths), named(columnPaths),
    named(init(row:)), named(encode(to:)), named(didInsert(rowID:))
)
public macro Record(table: String, primaryKey: String = "id") =
    #externalMacro(module: "StoreRecordMacros", type: "RecordMacro")

/// Names the column of a stored property of a ``Record(table:primaryKey:)`` struct, when it is not the
/// property's name in snake_case.
///
/// For example:
///
/// ```swift
/// @Column("hair_colour") var hairColor: String?
/// ```
@attached(peer)
public macro Column(_ name: String) = #externalMacro(module: "StoreRecordMacros", type: "ColumnMacro")

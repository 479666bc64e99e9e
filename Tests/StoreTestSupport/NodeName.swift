import ObservableStore

/// A record of the `nodes` table that is not `Equatable` (its id and name only): live queries and observed values
/// compare its records by their columns.
public struct NodeName: Record {
    public static let tableName = "nodes"
    public static let columns: [String]? = ["id", "name"]
    public typealias Key = Int64
    public var id: Int64?
    public var name: String
}

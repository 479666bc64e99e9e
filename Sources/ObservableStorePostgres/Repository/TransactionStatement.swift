#if PostgreSQL
import ObservableStoreCore
import StorePostgres

/// One statement a ``PostgresTransaction`` method runs, written once for the method's blocking and `async` forms:
/// its SQL and values, made from the column types of `table` (read from the catalog first unless cached), and what
/// the method returns, made from the statement's result.
struct TransactionStatement<Output> {
    /// The table whose column types ``make`` needs, if any.
    var table: String?
    /// The SQL (`$n` placeholders) and its values, for the table's column types.
    var make: (TableColumns) throws -> (sql: String, values: [DatabaseValue])
    /// What the method returns, from the statement's result.
    var finish: (ServerResult) throws -> Output

    /// A statement that needs `table`'s column types.
    init(
        table: String?, make: @escaping (TableColumns) throws -> (sql: String, values: [DatabaseValue]),
        finish: @escaping (ServerResult) throws -> Output
    ) {
        self.table = table
        self.make = make
        self.finish = finish
    }

    /// A statement whose text and values are known already.
    init(sql: String, values: [DatabaseValue], finish: @escaping (ServerResult) throws -> Output) {
        self.init(table: nil, make: { _ in (sql, values) }, finish: finish)
    }

    /// The same statement, returning `transform` of what this one returns.
    func map<Mapped>(_ transform: @escaping (Output) throws -> Mapped) -> TransactionStatement<Mapped> {
        let finish = finish
        return TransactionStatement<Mapped>(table: table, make: make) { try transform(finish($0)) }
    }
}

extension TransactionStatement where Output == ServerResult {
    /// A statement whose text and values are known already, returning its result.
    init(sql: String, values: [DatabaseValue]) {
        self.init(sql: sql, values: values) { $0 }
    }
}
#endif

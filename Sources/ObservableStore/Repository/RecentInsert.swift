/// The insert statement a writer used last: the next insert of the same record type binds straight into it
/// (`Transaction.insert`) without asking the shared ``StatementTextCache`` (a lock and a hash) or the type's
/// conformance to ``RowEncodable`` again. One per writer; used only inside writes, not thread-safe.
final class RecentInsert {
    struct Entry {
        /// The record type.
        let type: ObjectIdentifier
        /// The record type, as the ``RowEncodable`` it is.
        let encodable: any RowEncodable.Type
        /// The statement's columns, in parameter order.
        let columns: [String]
        let sql: String
    }

    /// The last insert statement, if any; nil after a record wrote other columns than its own.
    var entry: Entry?
}

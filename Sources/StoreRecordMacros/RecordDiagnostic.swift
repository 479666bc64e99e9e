import SwiftDiagnostics
import SwiftSyntax

/// What `@Record` and `@Column` refuse, each with a message that says what to write instead.
enum RecordDiagnostic: String, DiagnosticMessage {
    case notAStruct
    case tableNotALiteral
    case primaryKeyNotALiteral
    case noPrimaryKey
    case untypedProperty
    case severalBindings
    case codingKeysWritten
    case columnOnNonStoredProperty
    case columnNameNotALiteral
    case noColumns

    var message: String {
        switch self {
        case .notAStruct: "@Record applies to a struct"
        case .tableNotALiteral: "@Record's table must be a string literal, e.g. @Record(table: \"notes\")"
        case .primaryKeyNotALiteral: "@Record's primaryKey must be a string literal naming a stored property"
        case .noPrimaryKey:
            "@Record found no stored property for the primary key; add `var id: Int64?` or name the property "
                + "with @Record(table:primaryKey:)"
        case .untypedProperty: "@Record needs each stored property's type written out, e.g. `var x: Double = 0`"
        case .severalBindings: "@Record needs one stored property per declaration (`var a: Int` and `var b: Int`)"
        case .codingKeysWritten:
            "@Record writes CodingKeys itself; remove this one and rename a column with @Column(\"name\")"
        case .columnOnNonStoredProperty: "@Column applies to one stored property of a @Record struct"
        case .columnNameNotALiteral: "@Column's name must be a string literal, e.g. @Column(\"hair_colour\")"
        case .noColumns: "@Record found no stored property to store"
        }
    }

    var diagnosticID: MessageID { MessageID(domain: "StoreRecord", id: rawValue) }
    var severity: DiagnosticSeverity { .error }

    /// The error that reports this diagnostic at `node`.
    func error(at node: some SyntaxProtocol) -> DiagnosticsError {
        DiagnosticsError(diagnostics: [Diagnostic(node: Syntax(node), message: self)])
    }
}

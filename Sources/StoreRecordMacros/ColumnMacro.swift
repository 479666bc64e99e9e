import SwiftSyntax
import SwiftSyntaxMacros

/// `@Column("name")`: a marker that `@Record` reads (the column's name, when not the property's snake_case
/// name); it generates nothing itself.
public struct ColumnMacro: PeerMacro {
    public static func expansion(
        of node: AttributeSyntax, providingPeersOf declaration: some DeclSyntaxProtocol,
        in context: some MacroExpansionContext
    ) throws -> [DeclSyntax] {
        guard let variable = declaration.as(VariableDeclSyntax.self), variable.bindings.count == 1,
            variable.bindings.first?.accessorBlock.map(RecordProperty.isObserverBlock) ?? true
        else {
            throw RecordDiagnostic.columnOnNonStoredProperty.error(at: node)
        }
        guard RecordProperty.columnName(in: node) != nil else {
            throw RecordDiagnostic.columnNameNotALiteral.error(at: node)
        }
        return []
    }
}

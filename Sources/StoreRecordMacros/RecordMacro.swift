import SwiftSyntax
import SwiftSyntaxBuilder
import SwiftSyntaxMacros

/// `@Record(table:primaryKey:)`: from a struct's stored properties, what a fast record writes by hand (see
/// `NodeVO`): `CodingKeys` (snake_case column names, `@Column("…")` to rename one), `Columns`, `ColumnPaths`
/// for key-path filters, `init(row:)` (`RowDecodable`), `encode(to:)` (`RowEncodable`), `tableName`,
/// `primaryKey`, `Key`, and `didInsert(rowID:)` for an optional integer key.
///
/// The member role writes `CodingKeys` (Codable's synthesis looks for it in the type); the extension role
/// writes the rest and the conformances. Only the member role reports errors, so each is reported once.
public struct RecordMacro: MemberMacro, ExtensionMacro {
    public static func expansion(
        of node: AttributeSyntax, providingMembersOf declaration: some DeclGroupSyntax,
        conformingTo protocols: [TypeSyntax], in context: some MacroExpansionContext
    ) throws -> [DeclSyntax] {
        let record = try RecordDescription(node: node, declaration: declaration)
        let cases = record.properties.map { property in
            property.column == property.name.trimmingBackticks
                ? "case \(property.name)" : "case \(property.name) = \(literal(property.column))"
        }
        return [
            """
            \(raw: record.access)enum CodingKeys: String, CodingKey {
            \(raw: cases.joined(separator: "\n"))
            }
            """
        ]
    }

    public static func expansion(
        of node: AttributeSyntax, attachedTo declaration: some DeclGroupSyntax,
        providingExtensionsOf type: some TypeSyntaxProtocol, conformingTo protocols: [TypeSyntax],
        in context: some MacroExpansionContext
    ) throws -> [ExtensionDeclSyntax] {
        guard let record = try? RecordDescription(node: node, declaration: declaration) else { return [] }
        let access = record.access
        let key = record.key
        let conformances = protocols.map(\.trimmedDescription)
        let inheritance = conformances.isEmpty ? "" : ": " + conformances.joined(separator: ", ")
        let columnPaths = record.properties.map { property in
            "\(access)var \(property.name): ObservableStoreCore.TypedColumn<\(property.valueType)> { "
                + "ObservableStoreCore.TypedColumn(\(literal(property.column))) }"
        }
        let reads = record.properties.map { property in
            let read = property.isOptional ? "decodeIfPresent" : "decode"
            return "self.\(property.name) = try row.\(read)(\(property.valueType).self, \(literal(property.column)))"
        }
        let writes = record.properties.map { "row.encode(self.\($0.name), \(literal($0.column)))" }
        var members: [String] = [
            "\(access)static let tableName = \(literal(record.table))",
            "\(access)static var primaryKey: String { \(literal(key.column)) }",
            "\(access)typealias Key = \(key.valueType)",
            "\(access)typealias Columns = CodingKeys",
            """
            /// The record's columns as typed properties, for key-path filters.
            \(access)struct ColumnPaths: Sendable {
            \(columnPaths.joined(separator: "\n"))
            }
            """,
            "\(access)static var columnPaths: ColumnPaths { ColumnPaths() }",
            """
            \(access)init(row: ObservableStoreCore.RowReader) throws {
            \(reads.joined(separator: "\n"))
            }
            """,
            """
            \(access)func encode(to row: inout ObservableStoreCore.RowWriter) {
            \(writes.joined(separator: "\n"))
            }
            """,
        ]
        if let assignment = record.rowIDAssignment {
            members.append("\(access)mutating func didInsert(rowID: Int64) { \(assignment) }")
        }
        let declaration: DeclSyntax = """
            extension \(type.trimmed)\(raw: inheritance) {
            \(raw: members.joined(separator: "\n"))
            }
            """
        guard let extensionDecl = declaration.as(ExtensionDeclSyntax.self) else { return [] }
        return [extensionDecl]
    }

    /// `text` as a Swift string literal.
    static func literal(_ text: String) -> String {
        var escaped = "\""
        for character in text {
            if character == "\\" || character == "\"" { escaped.append("\\") }
            escaped.append(character)
        }
        return escaped + "\""
    }
}

/// A `@Record` struct as the macro reads it: table, primary key, columns, access level.
struct RecordDescription {
    let table: String
    let properties: [RecordProperty]
    let key: RecordProperty
    /// `public `, `package ` or nothing: the struct's access, for the members that witness `Record`'s requirements.
    let access: String
    /// `self.id = rowID` when the key is an optional `var` of `Int64` or `Int` and the struct has no
    /// `didInsert(rowID:)` of its own.
    let rowIDAssignment: String?

    init(node: AttributeSyntax, declaration: some DeclGroupSyntax) throws {
        guard let structDecl = declaration.as(StructDeclSyntax.self) else {
            throw RecordDiagnostic.notAStruct.error(at: node)
        }
        var table: String?
        var keyName = "id"
        if case .argumentList(let arguments) = node.arguments {
            for argument in arguments {
                switch argument.label?.text {
                case "table":
                    guard let text = RecordProperty.stringLiteral(argument.expression) else {
                        throw RecordDiagnostic.tableNotALiteral.error(at: argument.expression)
                    }
                    table = text
                case "primaryKey":
                    guard let text = RecordProperty.stringLiteral(argument.expression) else {
                        throw RecordDiagnostic.primaryKeyNotALiteral.error(at: argument.expression)
                    }
                    keyName = text
                default: break
                }
            }
        }
        guard let table else { throw RecordDiagnostic.tableNotALiteral.error(at: node) }
        let members = structDecl.memberBlock.members
        if let written = members.first(where: { Self.declaresCodingKeys($0.decl) }) {
            throw RecordDiagnostic.codingKeysWritten.error(at: written.decl)
        }
        let properties = try RecordProperty.storedProperties(of: members)
        guard !properties.isEmpty else { throw RecordDiagnostic.noColumns.error(at: structDecl.name) }
        guard let key = properties.first(where: { $0.name.trimmingBackticks == keyName }) else {
            throw RecordDiagnostic.noPrimaryKey.error(at: structDecl.name)
        }
        self.table = table
        self.properties = properties
        self.key = key
        let modifiers = structDecl.modifiers.map(\.name.tokenKind)
        if modifiers.contains(.keyword(.public)) || modifiers.contains(.keyword(.open)) {
            access = "public "
        } else if modifiers.contains(.keyword(.package)) {
            access = "package "
        } else {
            access = ""
        }
        let writesDidInsert = members.contains { member in
            member.decl.as(FunctionDeclSyntax.self)?.name.text == "didInsert"
        }
        if key.isOptional, key.isMutable, !writesDidInsert, ["Int64", "Int"].contains(key.valueType) {
            rowIDAssignment = key.valueType == "Int64" ? "self.\(key.name) = rowID" : "self.\(key.name) = Int(rowID)"
        } else {
            rowIDAssignment = nil
        }
    }

    private static func declaresCodingKeys(_ decl: DeclSyntax) -> Bool {
        if let enumDecl = decl.as(EnumDeclSyntax.self) { return enumDecl.name.text == "CodingKeys" }
        if let alias = decl.as(TypeAliasDeclSyntax.self) { return alias.name.text == "CodingKeys" }
        if let structDecl = decl.as(StructDeclSyntax.self) { return structDecl.name.text == "CodingKeys" }
        return false
    }
}

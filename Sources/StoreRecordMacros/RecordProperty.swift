import SwiftSyntax

/// One stored property of a `@Record` struct: one column.
struct RecordProperty {
    /// The property's name as written (backticks kept), for generated Swift.
    let name: String
    /// The column's name: `@Column("…")`'s, else the property's name in snake_case.
    let column: String
    /// The type without its optional mark: `Double` for `Double?`.
    let valueType: String
    /// Whether the property is an optional (`T?`, `T!` or `Optional<T>`).
    let isOptional: Bool
    /// Whether the property is a `var`.
    let isMutable: Bool

    /// The stored properties of `members`, in order. Static, computed and `lazy` properties are not columns;
    /// nor is a `let` with an initial value (Codable does not decode it either).
    static func storedProperties(of members: MemberBlockItemListSyntax) throws -> [RecordProperty] {
        var properties: [RecordProperty] = []
        for member in members {
            guard let variable = member.decl.as(VariableDeclSyntax.self) else { continue }
            let modifiers = variable.modifiers.map(\.name.tokenKind)
            if modifiers.contains(.keyword(.static)) || modifiers.contains(.keyword(.class))
                || modifiers.contains(.keyword(.lazy))
            {
                continue
            }
            let isMutable = variable.bindingSpecifier.tokenKind == .keyword(.var)
            let stored = variable.bindings.filter { binding in
                binding.accessorBlock.map(isObserverBlock) ?? true
            }
            guard !stored.isEmpty else { continue }
            guard variable.bindings.count == 1, let binding = stored.first else {
                throw RecordDiagnostic.severalBindings.error(at: variable)
            }
            if !isMutable && binding.initializer != nil { continue }
            guard let pattern = binding.pattern.as(IdentifierPatternSyntax.self) else {
                throw RecordDiagnostic.severalBindings.error(at: binding.pattern)
            }
            guard let type = binding.typeAnnotation?.type else {
                throw RecordDiagnostic.untypedProperty.error(at: binding)
            }
            let attribute = variable.attributes.lazy.compactMap { $0.as(AttributeSyntax.self) }
                .first { $0.attributeName.trimmedDescription == "Column" }
            let swiftName = pattern.identifier.text
            let plainName = swiftName.trimmingBackticks
            let (valueType, isOptional) = unwrapped(type)
            properties.append(
                RecordProperty(
                    name: swiftName, column: attribute.flatMap(columnName(in:)) ?? snakeCase(plainName),
                    valueType: valueType, isOptional: isOptional, isMutable: isMutable))
        }
        return properties
    }

    /// Whether an accessor block only observes (`willSet`/`didSet`): the property is still stored.
    static func isObserverBlock(_ block: AccessorBlockSyntax) -> Bool {
        guard case .accessors(let accessors) = block.accessors else { return false }
        return accessors.allSatisfy {
            $0.accessorSpecifier.tokenKind == .keyword(.willSet) || $0.accessorSpecifier.tokenKind == .keyword(.didSet)
        }
    }

    /// The string literal of `@Column("name")`, or nil.
    static func columnName(in attribute: AttributeSyntax) -> String? {
        guard case .argumentList(let arguments) = attribute.arguments, let first = arguments.first,
            first.label == nil
        else { return nil }
        return stringLiteral(first.expression)
    }

    /// The text of a string literal without interpolation, or nil.
    static func stringLiteral(_ expression: ExprSyntax) -> String? {
        guard let literal = expression.as(StringLiteralExprSyntax.self), literal.segments.count == 1,
            case .stringSegment(let segment) = literal.segments.first
        else { return nil }
        return segment.content.text
    }

    /// `T` and true for `T?`, `T!` and `Optional<T>`; the type and false otherwise.
    private static func unwrapped(_ type: TypeSyntax) -> (String, Bool) {
        if let optional = type.as(OptionalTypeSyntax.self) { return (optional.wrappedType.trimmedDescription, true) }
        if let implicit = type.as(ImplicitlyUnwrappedOptionalTypeSyntax.self) {
            return (implicit.wrappedType.trimmedDescription, true)
        }
        if let identifier = type.as(IdentifierTypeSyntax.self), identifier.name.text == "Optional",
            let argument = identifier.genericArgumentClause?.arguments.first
        {
            return (argument.argument.trimmedDescription, true)
        }
        return (type.trimmedDescription, false)
    }
}

/// `createdAt` → `created_at`, `userID` → `user_id`, `URLString` → `url_string`: a word starts at an upper-case
/// letter after a lower-case letter or digit, and at the last capital of an acronym followed by lower case.
func snakeCase(_ name: String) -> String {
    let characters = Array(name)
    var words: [String] = []
    var current = ""
    for (index, character) in characters.enumerated() {
        if character.isUppercase, !current.isEmpty {
            let previous = characters[index - 1]
            let nextIsLower = index + 1 < characters.count && characters[index + 1].isLowercase
            if previous.isLowercase || previous.isNumber || (previous.isUppercase && nextIsLower) {
                words.append(current)
                current = ""
            }
        }
        current.append(character)
    }
    words.append(current)
    return words.map { $0.lowercased() }.joined(separator: "_")
}

extension String {
    /// The name without the backticks of an escaped identifier (`` `default` `` → `default`).
    var trimmingBackticks: String {
        hasPrefix("`") && hasSuffix("`") && count > 1 ? String(dropFirst().dropLast()) : self
    }
}

import Foundation
import Hummingbird
import NIOCore

/// A request's JSON object body, read and checked: at most ``maximumSize`` bytes, `Content-Type: application/json`,
/// a JSON object whose members are all among the endpoint's fields; then typed access to each field, which names
/// the field when it is missing or of the wrong type.
///
/// For example:
///
/// ```swift
/// let body = try await JSONBody(request, allowed: ["name", "x", "y"])
/// let name = try body.string("name")          // 400 missing_field or wrong_type naming "name"
/// let x = try body.optionalNumber("x")        // nil when absent
/// ```
public struct JSONBody: Sendable {
    /// The largest body read: 1 MiB.
    public static let maximumSize = 1 << 20

    /// The object's members.
    public let members: [String: JSONValue]

    /// Reads and checks `request`'s body.
    ///
    /// Throws ``APIError``: 415 when the content type is not `application/json`, 413 when the body is larger than
    /// ``maximumSize``, 400 "malformed_json" when it is not a JSON object, 400 "unknown_field" for a member not in
    /// `allowed`.
    public init(_ request: Request, allowed: [String]) async throws {
        let contentType = request.headers[.contentType]
        guard let contentType, JSONBody.isJSON(contentType) else { throw APIError.unsupportedMediaType(contentType) }
        var request = request
        let buffer: ByteBuffer
        do {
            buffer = try await request.collectBody(upTo: JSONBody.maximumSize)
        } catch is NIOTooManyBytesError {
            throw APIError.tooLarge(limit: JSONBody.maximumSize)
        }
        try self.init(data: Data(buffer.readableBytesView), allowed: allowed)
    }

    /// Checks `data` as a body of an endpoint taking the fields `allowed`.
    public init(data: Data, allowed: [String]) throws {
        let value: JSONValue
        do {
            value = try JSONDecoder().decode(JSONValue.self, from: data)
        } catch {
            throw APIError.malformedJSON("the body is not valid JSON")
        }
        guard case .object(let members) = value else {
            throw APIError.malformedJSON("the body must be a JSON object, not \(value.typeName)")
        }
        if let unknown = members.keys.sorted().first(where: { !allowed.contains($0) }) {
            throw APIError.unknownField(unknown, allowed: allowed)
        }
        self.members = members
    }

    /// Whether `contentType` is `application/json`, with or without parameters such as `charset`.
    static func isJSON(_ contentType: String) -> Bool {
        let mediaType = contentType.split(separator: ";", maxSplits: 1).first ?? ""
        return mediaType.trimmingCharacters(in: .whitespaces).lowercased() == "application/json"
    }

    /// Whether the body has `field` (even as `null`).
    public func contains(_ field: String) -> Bool { members[field] != nil }

    /// The string `field`; throws when it is absent or not a string.
    public func string(_ field: String) throws -> String {
        guard let value = try optionalString(field) else { throw APIError.missingField(field) }
        return value
    }

    /// The string `field`, nil when absent; throws when it is there but not a string (`null` included).
    public func optionalString(_ field: String) throws -> String? {
        guard let value = members[field] else { return nil }
        guard case .string(let text) = value else { throw APIError.wrongType(field: field, expected: "a string") }
        return text
    }

    /// `field` when it may be a string or `null`: `.some(nil)` for `null`, nil when absent.
    public func nullableString(_ field: String) throws -> String?? {
        guard let value = members[field] else { return nil }
        if value == .null { return .some(nil) }
        guard case .string(let text) = value else {
            throw APIError.wrongType(field: field, expected: "a string or null")
        }
        return .some(text)
    }

    /// The number `field`; throws when it is absent or not a number.
    public func number(_ field: String) throws -> Double {
        guard let value = try optionalNumber(field) else { throw APIError.missingField(field) }
        return value
    }

    /// The number `field`, nil when absent; throws when it is there but not a number.
    public func optionalNumber(_ field: String) throws -> Double? {
        guard let value = members[field] else { return nil }
        guard let number = value.doubleValue else { throw APIError.wrongType(field: field, expected: "a number") }
        return number
    }

    /// The integer `field`, nil when absent; throws when it is there but not an integer.
    public func optionalInteger(_ field: String) throws -> Int64? {
        guard let value = members[field] else { return nil }
        switch value {
        case .integer(let integer): return integer
        case .number(let number) where number == number.rounded() && abs(number) < 9e15: return Int64(number)
        default: throw APIError.wrongType(field: field, expected: "an integer")
        }
    }
}

import Hummingbird

/// The query and path parameters of the board's routes, parsed or refused with 400 "bad_parameter".
enum RequestParameters {
    /// The path parameter `name` as an integer key.
    static func integerKey(_ name: String, in context: some RequestContext) throws -> Int64 {
        let text = context.parameters.get(name) ?? ""
        guard let key = Int64(text) else { throw APIError.badParameter(name, "must be an integer, not \"\(text)\"") }
        return key
    }

    /// The query parameter `name` as an integer in `range`, or `defaultValue` when absent.
    static func integer(
        _ name: String, in request: Request, range: ClosedRange<Int64>, default defaultValue: Int64?
    ) throws -> Int64? {
        let values = request.uri.queryParameters.getAll(name)
        guard let text = values.first else { return defaultValue }
        guard values.count == 1 else { throw APIError.badParameter(name, "is given more than once") }
        guard let value = Int64(text), range.contains(value) else {
            let bounds = range == Int64.min...Int64.max ? "" : " in \(range.lowerBound)...\(range.upperBound)"
            throw APIError.badParameter(name, "must be an integer\(bounds), not \"\(text)\"")
        }
        return value
    }
}

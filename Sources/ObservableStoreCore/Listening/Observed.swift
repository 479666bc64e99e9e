/// One value of an observed read, and the commit sequence it reflects: every commit up to `sequence` is in
/// it, none after.
public struct Observed<Value: Sendable>: Sendable {
    /// The value read.
    public let value: Value
    /// The last commit sequence the value reflects.
    public let sequence: Int64

    /// A value read at `sequence`: what an observed sequence yields, and what a consumer's tests can feed it.
    public init(value: Value, sequence: Int64) {
        self.value = value
        self.sequence = sequence
    }
}

extension Observed: Equatable where Value: Equatable {}

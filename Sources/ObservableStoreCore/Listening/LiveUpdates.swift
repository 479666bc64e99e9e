/// What a live model (``LiveQuery``, ``LiveRecord``) is told, on its actor, by the task that follows its
/// observed values.
enum LiveUpdate<Value: Sendable>: Sendable {
    /// A new value and the commit sequence it reflects.
    case value(Observed<Value>)
    /// A read failed: the sequence ended with this error.
    case failed(any Error)
    /// The sequence ended without an error (the store closed).
    case ended
}

/// The task that feeds a live model: iterates `values` and hands each element to `apply` on `actor`.
enum LiveUpdates {
    /// Starts a task that follows `values` for `model`, holding the model weakly: once it is released, the
    /// task stops at its next element, and the model's `deinit` cancels it, which ends the iteration and
    /// removes its listener. `apply` runs on `actor`, one update at a time, in order.
    static func follow<Model: AnyObject & Sendable, Value: Sendable>(
        _ values: ObservedValues<Value>, for model: Model, on actor: any Actor,
        apply: @escaping @Sendable (Model, LiveUpdate<Value>, isolated any Actor) -> Void
    ) -> Task<Void, Never> {
        Task { [weak model] in
            do {
                for try await element in values {
                    guard let model else { return }
                    await apply(model, .value(element), actor)
                }
                if let model { await apply(model, .ended, actor) }
            } catch {
                if let model { await apply(model, .failed(error), actor) }
            }
        }
    }
}

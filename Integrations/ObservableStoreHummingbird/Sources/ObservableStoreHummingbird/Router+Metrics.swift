import Hummingbird
import Prometheus

extension Router {
    /// Serves `registry`'s metrics at `GET path` in the Prometheus text format (`text/plain; version=0.0.4`).
    ///
    /// For example, with swift-metrics bootstrapped on the same registry:
    ///
    /// ```swift
    /// let registry = PrometheusCollectorRegistry()
    /// MetricsSystem.bootstrap(PrometheusMetricsFactory(registry: registry))
    /// router.addMetrics("metrics", registry: registry)
    /// ```
    @discardableResult
    public func addMetrics(_ path: RouterPath, registry: PrometheusCollectorRegistry) -> Self {
        get(path) { _, _ in
            Response(
                status: .ok, headers: [.contentType: "text/plain; version=0.0.4"],
                body: ResponseBody(byteBuffer: ByteBuffer(bytes: registry.emitToBuffer())))
        }
        return self
    }
}

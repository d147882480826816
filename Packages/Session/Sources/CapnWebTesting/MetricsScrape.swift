import NIOHTTP1
import RpcTransport
import RpcTransportNIO

/// One read of a Prometheus `GET /metrics` endpoint (the commands' `--metrics-port`), parsed:
/// the families its `# TYPE` lines declare and its samples, so a test can check that the
/// documented names are served and that counters moved. Here rather than in
/// `RpcTransportTesting`, which stays without SwiftNIO: it reads with the transport's
/// `HTTPClient`.
///
/// ```swift
/// let scrape = try await MetricsScrape.get("http://127.0.0.1:9464/metrics")
/// #expect(scrape.isWellFormed)
/// #expect(scrape.type(of: "rivetkit_actions_started_total") == "counter")
/// #expect(scrape.value("rivetkit_actions_started_total", ["method": "increment"]) >= 3)
/// ```
public struct MetricsScrape: Sendable {
    /// One sample line: `name{labels} value`.
    public struct Sample: Sendable, Hashable {
        /// The sample's name (for a histogram, with its `_bucket`, `_sum` or `_count`).
        public var name: String
        /// Its labels.
        public var labels: [String: String]
        /// Its value.
        public var value: Double
    }

    /// The response's status code.
    public var status: Int
    /// The response's `Content-Type`.
    public var contentType: String?
    /// The body.
    public var text: String
    /// The samples, in the order served.
    public private(set) var samples: [Sample] = []
    /// Whether every line is a `# HELP` or `# TYPE` comment or a well-formed sample.
    public private(set) var isWellFormed = true
    /// The type each `# TYPE` line declares (`counter`, `gauge`, `histogram`), by family name.
    public private(set) var types: [String: String] = [:]

    /// Parses a response.
    public init(status: Int, contentType: String?, text: String) {
        self.status = status
        self.contentType = contentType
        self.text = text
        for line in text.split(separator: "\n") {
            if line.hasPrefix("# TYPE ") {
                let words = line.dropFirst("# TYPE ".count).split(separator: " ")
                if words.count == 2 { types[String(words[0])] = String(words[1]) } else { isWellFormed = false }
            } else if line.hasPrefix("#") {
                isWellFormed = isWellFormed && line.hasPrefix("# HELP ")
            } else if let sample = Self.sample(line) {
                samples.append(sample)
            } else {
                isWellFormed = false
            }
        }
    }

    /// GETs `url` (`http://host:port/path`) with the transport's HTTP client and parses the
    /// answer, whatever its status.
    ///
    /// - Throws: `TransportError` when the URL has no path or no answer comes.
    public static func get(_ url: String) async throws -> MetricsScrape {
        guard url.hasPrefix("http://"), let slash = url.dropFirst("http://".count).firstIndex(of: "/") else {
            throw TransportError(code: .invalidTarget, message: "not an http:// URL with a path: \(url)")
        }
        let client = try HTTPClient(baseURL: String(url[..<slash]))
        do {
            let response = try await client.execute(HTTPClientRequest(method: .GET, path: String(url[slash...])))
            await client.close()
            return MetricsScrape(
                status: response.status, contentType: response.headers["content-type"].first,
                text: String(decoding: response.body, as: UTF8.self))
        } catch {
            await client.close()
            throw error
        }
    }

    /// The type the family `name` was declared with; `nil` when it is not served.
    public func type(of name: String) -> String? { types[name] }

    /// The transport's families every command serves (`docs/observability.md`), name to type.
    public static let transportFamilies = [
        "rpc_transport_connections_open": "gauge", "rpc_transport_websockets_open": "gauge",
        "rpc_transport_bytes_received_total": "counter", "rpc_transport_bytes_sent_total": "counter",
    ]

    /// The families of `expected` (name to type) that are not served with that type, each as
    /// "`name` is served as `type`, not `expected type`", sorted; empty when every one is.
    public func mistyped(_ expected: [String: String]) -> [String] {
        expected.sorted { $0.key < $1.key }.compactMap { name, type in
            types[name] == type ? nil : "\(name) is served as \(types[name] ?? "nothing"), not \(type)"
        }
    }

    /// The sum of the samples named `name` that carry every label of `labels`; 0 when none does.
    public func value(_ name: String, _ labels: [String: String] = [:]) -> Double {
        samples.lazy
            .filter { sample in sample.name == name && labels.allSatisfy { sample.labels[$0.key] == $0.value } }
            .reduce(0) { $0 + $1.value }
    }

    /// `name{a="x",b="y"} value`, or `nil` for a malformed line.
    private static func sample(_ line: Substring) -> Sample? {
        guard let space = line.lastIndex(of: " "), let value = Double(line[line.index(after: space)...]) else { return nil }
        let head = line[..<space]
        let name = head.prefix { $0 != "{" }
        guard !name.isEmpty, name.allSatisfy({ $0.isLetter || $0.isNumber || $0 == "_" || $0 == ":" }) else { return nil }
        var labels: [String: String] = [:]
        var rest = head.dropFirst(name.count)
        if rest.first == "{" {
            guard rest.last == "}" else { return nil }
            rest = rest.dropFirst().dropLast()
            while !rest.isEmpty {
                guard let equals = rest.firstIndex(of: "=") else { return nil }
                let label = String(rest[..<equals])
                rest = rest[rest.index(after: equals)...]
                guard rest.first == "\"" else { return nil }
                rest = rest.dropFirst()
                var text = ""
                var escaped = false
                var closed = false
                while let character = rest.first {
                    rest = rest.dropFirst()
                    if escaped {
                        text.append(character == "n" ? "\n" : character)
                        escaped = false
                    } else if character == "\\" {
                        escaped = true
                    } else if character == "\"" {
                        closed = true
                        break
                    } else {
                        text.append(character)
                    }
                }
                guard closed else { return nil }
                labels[label] = text
                if rest.first == "," { rest = rest.dropFirst() }
            }
        } else if !rest.isEmpty {
            return nil
        }
        return Sample(name: String(name), labels: labels, value: value)
    }
}

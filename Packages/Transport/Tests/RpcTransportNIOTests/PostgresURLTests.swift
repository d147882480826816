import RpcTransport
import RpcTransportNIO
import Testing

@Suite("PostgresURL: one setting read the same way by every PostgreSQL store")
struct PostgresURLTests {
    @Test("A URL is read whole: user and password percent-decoded (+ is itself), host, port, database, sslmode")
    func readsWhole() throws {
        let url = try PostgresURL("postgres://ann:s%3Acret+1@db.example:6543/actors?sslmode=require")
        #expect(url.host == "db.example" && url.port == 6543 && url.username == "ann" && url.password == "s:cret+1")
        #expect(url.database == "actors" && url.sslMode == .require)
        let defaults = try PostgresURL("postgresql://ann@127.0.0.1")
        #expect(defaults.port == 5432 && defaults.database == nil && defaults.password == nil && defaults.sslMode == .disable)
        let ipv6 = try PostgresURL("postgres://ann@[::1]:5433/db")
        #expect(ipv6.host == "::1" && ipv6.port == 5433)
    }

    @Test("A URL that cannot be used is refused with invalidTarget, saying why", arguments: [
        "mysql://ann@h/db", "postgres://h/db", "postgres://ann@/db", "postgres://ann@h/db?sslmode=verify", "not a url",
        "postgres://ann@h:99999/db", "postgres://%zz@h/db",
    ])
    func refuses(_ text: String) {
        #expect(throws: TransportError.self) { try PostgresURL(text) }
        do {
            _ = try PostgresURL(text)
        } catch {
            #expect(error.code == .invalidTarget)
        }
    }
}

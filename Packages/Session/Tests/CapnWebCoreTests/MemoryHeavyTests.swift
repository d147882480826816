import Testing

/// The suites that build large structures or measure the process's memory, run one test at a
/// time so that no test's measurement counts another's allocations.
@Suite("Memory-heavy tests, one at a time", .serialized)
enum MemoryHeavyTests {}

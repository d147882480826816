// What conformance tests of a Cap'n Web server use: the reference wire transcript, a peer that
// speaks raw frames, the replay of the reference client's side, and the conformance test API
// (`TestAPI`) to serve as the main object.
@_exported public import CapnWebDemo

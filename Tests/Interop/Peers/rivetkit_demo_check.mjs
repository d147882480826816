// Drives every feature of `rivetkit serve --demo` with RivetKit's own TypeScript client
// (`rivetkit/client`, 2.3.x), against the endpoint given as the first argument. Prints one
// `ok <feature>` line per feature that behaved as documented (docs/actors.md), then `done`;
// exits with 1 and a `failed <feature>: <why>` line at the first one that did not.
//
//   node rivetkit_demo_check.mjs http://127.0.0.1:6420 [sleepTimeoutMs]
//
// The server must run with a short sleep timeout (the second argument, 300 ms by default) so
// that the wake count can be seen to grow.
import { createClient } from "rivetkit/client";

const endpoint = process.argv[2];
const sleepTimeoutMs = Number(process.argv[3] ?? 300);
const client = createClient({ endpoint, disableMetadataLookup: false });
const run = `${process.pid}-${Date.now()}`;

let feature = "setup";
function check(condition, why) {
    if (!condition) throw new Error(why);
}
function ok() {
    console.log(`ok ${feature}`);
}
const pause = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
function within(ms, promise, what) {
    return Promise.race([promise, pause(ms).then(() => { throw new Error(`no ${what} within ${ms} ms`); })]);
}

try {
    feature = "connection-params";
    const counter = client.counter.getOrCreate([`interop-${run}`], { params: { user: "ann" } });
    const conn = counter.connect();
    check((await conn.whoAmI()) === "ann", "whoAmI did not answer the user of the params");
    ok();

    feature = "connection-count";
    const other = client.counter.getOrCreate([`interop-${run}`]).connect();
    check((await other.whoAmI()) === null, "a connection without params has no user");
    check((await conn.connectionCount()) === 2, "connectionCount is not 2 with two connections");
    await other.dispose();
    ok();

    feature = "schedule";
    const fired = new Promise((resolve) => conn.on("newCount", (count) => resolve(count)));
    const before = await conn.getCount();
    const id = await conn.scheduleIncrement(3, 100);
    check(typeof id === "string" && id.length > 0, "scheduleIncrement did not answer an id");
    check((await within(10_000, fired, "newCount event")) === before + 3, "the scheduled increment did not add 3");
    ok();

    feature = "raw-fetch";
    const response = await counter.fetch("/count");
    check(response.status === 200, `GET /count answered ${response.status}`);
    check((await response.json()).count === before + 3, "GET /count did not answer the count");
    check((await counter.fetch("/elsewhere")).status === 404, "another path did not answer 404");
    ok();

    feature = "raw-websocket";
    const openSocket = (counter.webSocket ?? counter.websocket).bind(counter);
    const socket = await openSocket("/echo");
    const echoed = new Promise((resolve, reject) => {
        socket.addEventListener("message", (event) => resolve(String(event.data)));
        socket.addEventListener("error", () => reject(new Error("the raw socket failed")));
    });
    if (socket.readyState !== 1) {
        await within(10_000, new Promise((resolve) => socket.addEventListener("open", resolve)), "open");
    }
    socket.send("hi");
    check((await within(10_000, echoed, "echo")) === `count:${before + 3}:hi`, "the echo is not count:<N>:hi");
    socket.close();
    ok();

    feature = "forwarder";
    const forwarded = await client.forwarder.getOrCreate([`f-${run}`]).incrementCounter(`interop-${run}`, 5);
    check(forwarded === before + 8, "incrementCounter did not answer the counter's new count");
    check((await conn.getCount()) === before + 8, "the counter does not show the forwarded increment");
    ok();
    await conn.dispose();

    feature = "sleep-and-wake";
    const sleeper = client.counter.getOrCreate([`sleepy-${run}`]);
    check((await sleeper.wakeCount()) === 1, "wakeCount is not 1 after the first request");
    await sleeper.increment(2);
    await pause(sleepTimeoutMs * 4);
    check((await sleeper.wakeCount()) === 2, "wakeCount is not 2 after a sleep and a wake");
    check((await sleeper.getCount()) === 2, "the state did not survive the sleep");
    ok();

    feature = "destroy";
    const doomed = client.counter.getOrCreate([`doomed-${run}`]);
    await doomed.increment(1);
    check((await doomed.destroySelf()) === true, "destroySelf did not answer true");
    let missing;
    for (let attempt = 0; attempt < 50 && missing === undefined; attempt++) {
        try {
            await client.counter.get([`doomed-${run}`]).getCount();
            await pause(20);
        } catch (error) {
            missing = error;
        }
    }
    check(missing !== undefined, "the destroyed actor still answers");
    check(missing.code === "not_found", `the destroyed actor's error is ${missing.group}.${missing.code}`);
    ok();

    console.log("done");
    await client.dispose?.();
    process.exit(0);
} catch (error) {
    console.log(`failed ${feature}: ${error?.message ?? error}`);
    process.exit(1);
}

# A thin front for the scripts in Scripts/.
.PHONY: all bootstrap test-all test test-postgres bench bench-wire bench-transport bench-session bench-actors bench-tinyvex fuzz demo check-docs docs clean check-layers check-session-leak-checks check-one-way

all: test-all

bootstrap:
	@bash Scripts/bootstrap.sh

test-all:
	@bash Scripts/test-all.sh

test: test-all

test-postgres:
	@bash Scripts/test-postgres.sh

bench:
	@bash Scripts/bench.sh

bench-wire:
	@bash Scripts/bench-wire.sh

bench-transport:
	@bash Scripts/bench-transport.sh

bench-session:
	@bash Scripts/bench-session.sh

bench-actors:
	@bash Scripts/bench-actors.sh

bench-tinyvex:
	@bash Scripts/bench-tinyvex.sh

fuzz:
	@bash Scripts/fuzz.sh

demo:
	@bash Scripts/demo.sh

check-docs:
	@bash Scripts/check-docs.sh

docs:
	@bash Scripts/docs.sh

clean:
	@bash Scripts/clean.sh

check-layers:
	@bash Scripts/check-layers.sh

check-session-leak-checks:
	@bash Scripts/check-session-leak-checks.sh

check-one-way:
	@python3 Scripts/check_one_way.py

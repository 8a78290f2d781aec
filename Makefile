# Every target goes through scripts/, which pin Java 17 and use the project's venv.
.PHONY: setup demo test test-all lint unit clean airflow

setup:
	scripts/setup.sh dev

demo:
	scripts/setup.sh && scripts/demo.sh

test:
	scripts/test.sh

test-all:
	scripts/test.sh --all

unit:
	scripts/setup.sh dev && .venv/bin/pytest tests/unit -q

lint:
	scripts/setup.sh dev && .venv/bin/ruff check . && .venv/bin/ruff format --check . && .venv/bin/mypy

airflow:
	scripts/setup.sh airflow && scripts/airflow.sh up

clean:
	rm -rf .crawldedup .pytest_cache .mypy_cache .ruff_cache

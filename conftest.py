# The project's own test configuration lives in tests/conftest.py; this root
# conftest only keeps benchmarks/ and example_claims/ out of test collection.
collect_ignore = ["benchmarks", "example_claims"]

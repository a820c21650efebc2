"""SGLang's `bench_serving` results: the format and its records."""

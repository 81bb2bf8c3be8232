package main

import rego.v1

# A conftest test file beside the policy: lint must not load it as policy.
test_nothing if true

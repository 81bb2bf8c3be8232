package lint

// Help is `kubectl workload lint --help`'s long description: inputs, the api/* rules, live mode and the exit status.
const Help = `Lint workload manifests from files, directories (recursively: .yaml, .yml, .json)
or standard input ("-"). Findings are reported at file:line:col.

The api/* rules run the API server's own v1.37 validation, offline: an api/* error
means kubectl apply would be rejected. Objects without a namespace are checked as
if created in -n, else "default".

Live cluster (read-only: get and list requests only): --live lints the workloads
in the cluster of the kubeconfig's context (-n, else the context's namespace; -A
for all), or the TYPE/NAME objects named. --against-live checks files as updates
of the cluster's objects of the same name, as kubectl apply would send them, and
lints them with the cluster's objects around them. --base-ref REF does the same
update check offline, against each file's version at a git revision.

Exit status: 0 when clean, 1 when a finding is at or above --fail-on, 2 for usage
or tool errors (such as a path that does not exist).`

// Example is `kubectl workload lint --help`'s examples, in kubectl's indented form.
const Example = `  # Lint every manifest under a directory
  kubectl workload lint deploy/

  # Lint files and standard input, failing on warnings too
  helm template . | kubectl workload lint chart-extra.yaml - --fail-on warning

  # Machine-readable findings
  kubectl workload lint -o json k8s/

  # Lint what runs in the cluster (read-only: get and list)
  kubectl workload lint --live -n shop
  kubectl workload lint --live -A
  kubectl workload lint --live deployment/web

  # Would applying these files be refused as updates (immutable fields)?
  kubectl workload lint -f deploy/ --against-live
  kubectl workload lint --base-ref origin/main deploy/`

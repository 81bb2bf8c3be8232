package upgrade

import (
	"fmt"
	"sort"
	"strings"
	"time"

	"k8s.io/apimachinery/pkg/util/intstr"
)

// Preset is a provider's default upgrade algorithm; Sources are the pages each number comes
// from, Unverified the numbers we could not find on the provider's own pages.
type Preset struct {
	Name        string
	Description string
	Algorithm
	Sources    []string
	Unverified []string
}

// presets are the providers' defaults. Every number cites the provider's documentation.
var presets = map[string]Preset{
	// AKS: maxSurge "If not specified, the default is 10%" (fractional nodes rounded up),
	// maxUnavailable "If not specified, the default is 0", drainTimeoutInMinutes "If this
	// time is exceeded, the upgrade fails. If not specified, the default is 30 minutes"
	// (AgentPoolUpgradeSettings); "it cordons and drains as many nodes at the same time as the
	// number of buffer nodes" (rolling upgrades). Older API versions defaulted maxSurge to 1.
	"aks": {
		Name:        "aks",
		Description: "AKS node pool upgrade: max surge 10% (rounded up), max unavailable 0, drain timeout 30m, then the upgrade fails (UpgradeFailed)",
		Algorithm: Algorithm{MaxSurge: intstr.FromString("10%"), MaxUnavailable: intstr.FromInt32(0),
			DrainTimeout: 30 * time.Minute, OnTimeout: OnTimeoutFail},
		Sources: []string{
			"https://learn.microsoft.com/en-us/javascript/api/@azure/arm-containerservice/agentpoolupgradesettings",
			"https://docs.azure.cn/en-us/aks/upgrade-aks-node-pools-rolling",
		},
		Unverified: []string{"the default of max surge was 1 in older AKS API versions (the issue says so; the pages found give 10%)"},
	},
	// EKS managed node groups: maxUnavailable "The default value is one node"; the scale-up
	// phase launches up to twice the number of Availability Zones (or maxUnavailable, the
	// larger) new nodes before draining: 2 for a single-zone group. The 15-minute eviction
	// timeout (then PodEvictionFailure unless the update is forced) is stated on re:Post, not
	// on the page found.
	"eks": {
		Name:        "eks",
		Description: "EKS managed node group update: max unavailable 1 (one node drained at a time), 2 new nodes first (twice the zones, one zone), 15m eviction timeout, then the update fails (PodEvictionFailure)",
		Algorithm: Algorithm{MaxSurge: intstr.FromInt32(2), MaxUnavailable: intstr.FromInt32(1), DrainAtOnce: 1,
			DrainTimeout: 15 * time.Minute, OnTimeout: OnTimeoutFail},
		Sources: []string{
			"https://docs.aws.amazon.com/eks/latest/userguide/managed-node-update-behavior.md",
			"https://repost.aws/questions/QUm352Do4vRGKDhwYRHOhh6A/update-eks-node-groups-timeout",
		},
		Unverified: []string{
			"the 15-minute eviction timeout and PodEvictionFailure: found on AWS re:Post, not on the managed-node-update-behavior page's text we could read",
			"the surge of 2 assumes a node group in one Availability Zone (EKS launches up to twice the zone count): set --max-surge for more zones",
		},
	},
	// GKE surge upgrades: "(maxUnavailable + maxSurge) determines the level of parallelism
	// (how many nodes are being upgraded at the same time)" (NodePool.UpgradeSettings).
	"gke": {
		Name:        "gke",
		Description: "GKE surge upgrade: max surge 1, max unavailable 0, PodDisruptionBudgets respected for 1h, then the pods are deleted anyway",
		Algorithm: Algorithm{MaxSurge: intstr.FromInt32(1), MaxUnavailable: intstr.FromInt32(0),
			DrainTimeout: time.Hour, OnTimeout: OnTimeoutForce},
		Sources: []string{
			"https://cloud.google.com/java/docs/reference/google-cloud-container/2.13.0/com.google.container.v1.NodePool.UpgradeSettings",
			"https://cloud.google.com/kubernetes-engine/docs/concepts/node-pool-upgrade-strategies",
		},
		Unverified: []string{
			"the defaults max surge 1 and max unavailable 0, and the 1-hour PodDisruptionBudget timeout: from the issue and GKE's node-pool-upgrade-strategies page, whose text on them we could not read to check",
		},
	},
}

// PresetNamed is the preset of name (aks, eks, gke).
func PresetNamed(name string) (Preset, error) {
	p, ok := presets[strings.ToLower(name)]
	if !ok {
		return Preset{}, fmt.Errorf("preset %q: want one of %s", name, strings.Join(PresetNames(), ", "))
	}
	return p, nil
}

// PresetNames are the presets' names, sorted.
func PresetNames() []string {
	out := make([]string, 0, len(presets))
	for n := range presets {
		out = append(out, n)
	}
	sort.Strings(out)
	return out
}

package kernel

import (
	"fmt"
	"sort"
	"strconv"
	"strings"

	"k8s.io/apimachinery/pkg/util/intstr"
)

// Scaled resolves v against total as intstr.GetScaledValueFromIntOrPercent does (every
// controller's maxSurge and maxUnavailable), and explains the arithmetic in the words plans
// print. An integer explains itself; a percentage shows its exact value and, when that is not
// whole, the rounding. The error is GetScaledValueFromIntOrPercent's, for a value that is
// neither.
//
// Example: 25% of 10 rounded up is 3, "25% of 10 = 2.5 → 3 (rounded up)"; rounded down 2; 50%
// of 4 is "50% of 4 = 2"; the integer 3 is "3".
func Scaled(v *intstr.IntOrString, total int, roundUp bool) (int, string, error) {
	n, err := intstr.GetScaledValueFromIntOrPercent(v, total, roundUp)
	if err != nil {
		return 0, "", err
	}
	if v.Type == intstr.Int {
		return n, strconv.Itoa(n), nil
	}
	pct, _ := strconv.Atoi(strings.TrimSuffix(v.StrVal, "%"))
	exact := float64(pct) * float64(total) / 100
	text := fmt.Sprintf("%s of %d = %s", v.StrVal, total, strconv.FormatFloat(exact, 'f', -1, 64))
	if exact != float64(n) {
		way := "rounded down"
		if roundUp {
			way = "rounded up"
		}
		text += fmt.Sprintf(" → %d (%s)", n, way)
	}
	return n, text, nil
}

// SortSteps orders a plan's steps by time, then by the order they were taken (Seq): the
// order every plan prints them in.
func SortSteps(steps []Step) {
	sort.SliceStable(steps, func(i, j int) bool {
		if steps[i].At != steps[j].At {
			return steps[i].At < steps[j].At
		}
		return steps[i].Seq < steps[j].Seq
	})
}

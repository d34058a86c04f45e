package metrics_test

import (
	"errors"
	"fmt"

	"github.com/udocc/udocc/metrics"
)

// ExampleROCAUC ranks two anomalies among five rows. The tie between an anomaly and a
// normal row (0.4) counts one half.
func ExampleROCAUC() {
	labels := []int{0, 0, 1, 0, 1}
	scores := []float64{0.1, 0.4, 0.4, 0.8, 0.9}
	auc, err := metrics.ROCAUC(labels, scores)
	fmt.Printf("%.4f %v\n", auc, err)
	// Output: 0.7500 <nil>
}

// ExamplePRAUC is scikit-learn's average precision of the same ranking.
func ExamplePRAUC() {
	ap, err := metrics.PRAUC([]int{0, 0, 1, 0, 1}, []float64{0.1, 0.4, 0.4, 0.8, 0.9})
	fmt.Printf("%.4f %v\n", ap, err)
	// Output: 0.7500 <nil>
}

// ExampleAUCs gives both areas from one sort.
func ExampleAUCs() {
	roc, pr, err := metrics.AUCs([]int{1, 0, 1, 0}, []float64{0.9, 0.2, 0.7, 0.1})
	fmt.Println(roc, pr, err)
	// Output: 1 1 <nil>
}

// ExampleCount tallies a labelling and reads its precision, recall and F1.
func ExampleCount() {
	c, err := metrics.Count([]int{1, 1, 0, 0, 1}, []int{1, 0, 1, 0, 1})
	fmt.Printf("%+v %.3f %.3f %.3f %v\n", c, c.Precision(), c.Recall(), c.F1(), err)
	// Output: {TP:2 FP:1 TN:1 FN:1} 0.667 0.667 0.667 <nil>
}

// Example_oneClass shows an undefined case as an error, never NaN.
func Example_oneClass() {
	_, err := metrics.ROCAUC([]int{0, 0, 0}, []float64{1, 2, 3})
	fmt.Println(errors.Is(err, metrics.ErrOneClass))
	// Output: true
}

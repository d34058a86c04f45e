package tool

import "github.com/udocc/udocc/internal/review"

// RankedAnswer is an answer on the row of rank Rank (1-based, ReviewRanks) among the
// rows reviewed, whose score is Score: what a labels file holds when the table itself
// is not at hand (udocc cut --labels).
type RankedAnswer struct {
	Rank    int
	Score   float64
	Anomaly bool
	Round   int // 0: a row the user picked
}

// ReviewRanks are the 1-based rank of each score (rank[i], review.Ranks: scores
// descending, ties to the lower row first) and the row of each rank (order[r-1]). These
// are a review's ranks (udocc.Model.ReviewRows), which break ties the other way from
// scores.csv's.
func ReviewRanks(scores []float64) (rank, order []int) {
	rank = review.Ranks(scores)
	order = make([]int, len(scores))
	for i, r := range rank {
		order[r-1] = i
	}
	return rank, order
}

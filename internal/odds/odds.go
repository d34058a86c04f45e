package odds

// Set describes one ODDS benchmark file of the paper's Table I.
type Set struct {
	// Name is the data set's ODDS name ("satimage-2").
	Name string
	// File is the file name on the ODDS site and on disk ("satimage-2.mat").
	File string
	// N, D and Anomalies are the expected rows, columns and rows labelled 1.
	N, D, Anomalies int
	// Size is the file size in bytes.
	Size int64
	// SHA256 is the lower-case hex SHA-256 digest of the file.
	SHA256 string
	// URL is the download link of the file.
	URL string
}

// oddsSets are the ten data sets of Table I, in the table's order. Shapes,
// counts, sizes and digests are those of shared/data/odds/README.md,
// measured from the files (all agree with the paper).
//
// The URLs are the Dropbox links behind each data set's "Download" link on
// its ODDS page (http://odds.cs.stonybrook.edu/<name>-dataset/), with
// "?dl=0" (Dropbox's preview page) changed to "?dl=1" (the file itself).
// The same links, with the same Dropbox ids, appear in the ODDS loader of
// the Deep SVDD authors' lukasruff/Deep-SAD-PyTorch
// (src/base/odds_dataset.py: six of the ten, already "?dl=1") and in other
// public ODDS download scripts that list all ten. Dropbox may retire such
// links; FetchOptions.BaseURL and FetchOptions.URLs override them.
var oddsSets = [...]Set{
	{"pima", "pima.mat", 768, 8, 268, 11320,
		"b6a5be8d548b9293d6958beceb1c77055591714d25d40d957eba87808456468f",
		"https://www.dropbox.com/s/mvlwu7p0nyk2a2r/pima.mat?dl=1"},
	{"satellite", "satellite.mat", 6435, 36, 2036, 144833,
		"6feac3112b9c14e1c3e60afc437f2f3d29dc1000119c9f950c628078778d6aa0",
		"https://www.dropbox.com/s/dpzxp8jyr9h93k5/satellite.mat?dl=1"},
	{"arrhythmia", "arrhythmia.mat", 452, 274, 66, 105540,
		"e4d47e499591ae31e5d7f0cd983367092353eac240f48e14c9b36457edb3460d",
		"https://www.dropbox.com/s/lmlwuspn1sey48r/arrhythmia.mat?dl=1"},
	{"cardio", "cardio.mat", 1831, 21, 176, 68318,
		"5e568b6a73711012c481fa6cc984ab9c68e9a4fa44d6aeb3b43efa381c3f695b",
		"https://www.dropbox.com/s/galg3ihvxklf0qi/cardio.mat?dl=1"},
	{"mnist", "mnist.mat", 7603, 100, 700, 541898,
		"9479e221f236684c09f3e11c7ad124725d34ecd301b9450425e8b113368413a6",
		"https://www.dropbox.com/s/n3wurjt8v9qi6nc/mnist.mat?dl=1"},
	{"wbc", "wbc.mat", 378, 30, 21, 78408,
		"afe6b26953cc196b9a480318c903e0edef22529c2f61bd02082438c6e70630a7",
		"https://www.dropbox.com/s/ebz9v9kdnvykzcb/wbc.mat?dl=1"},
	{"glass", "glass.mat", 214, 9, 9, 4967,
		"2c506e6e1e2ca1e82a905d10a90773151ff812c4bd969c71a12db5b2bb6e7921",
		"https://www.dropbox.com/s/iq3hjxw77gpbl7u/glass.mat?dl=1"},
	{"thyroid", "thyroid.mat", 3772, 6, 93, 39704,
		"49155d7861b977e90808faf68343ff67a67f63090c2744d514dbb67ac68e7e33",
		"https://www.dropbox.com/s/bih0e15a0fukftb/thyroid.mat?dl=1"},
	{"pendigits", "pendigits.mat", 6870, 16, 156, 658866,
		"7bc32ac83b3d583443acea8b1342a54aaa59eaedb9996af405322f473f3c22bc",
		"https://www.dropbox.com/s/1x8rzb4a0lia6t1/pendigits.mat?dl=1"},
	{"satimage-2", "satimage-2.mat", 5803, 36, 71, 181220,
		"95c37a07cea2cb201f6900d14f521510e10b6b2f0074c06ac46d3157440ec67b",
		"https://www.dropbox.com/s/hckgvu9m6fs441p/satimage-2.mat?dl=1"},
}

// Sets returns the ten ODDS data sets of the paper's Table I, in the
// table's order (a copy; callers may modify it).
func Sets() []Set { return append([]Set(nil), oddsSets[:]...) }

// Lookup returns the ODDS data set with the given name.
func Lookup(name string) (Set, bool) {
	for _, s := range oddsSets {
		if s.Name == name {
			return s, true
		}
	}
	return Set{}, false
}

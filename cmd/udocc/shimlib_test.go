//go:build udocc_shimlib

package main

// shimLib says that this test binary, and the udocc binary TestMain builds, link
// lib/libudocc_torch.so (the build tag udocc_shimlib, as build.sh builds).
const shimLib = true

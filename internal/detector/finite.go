package detector

// checkFinite refuses a fitted model any of whose networks holds a value that is not
// finite (method.Networks.CheckFinite, which a fit runs before it scores a row).
func (m *Model) checkFinite() error { return m.fit.Networks().CheckFinite() }

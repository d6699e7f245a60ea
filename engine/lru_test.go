package engine

import "testing"

// TestLRU: values are kept within the budget, the one used least recently
// goes first, a value larger than the budget is not kept, and putting a
// key again replaces it.
func TestLRU(t *testing.T) {
	c := newLRU[string](10)
	c.put("a", "A", 4)
	c.put("b", "B", 4)
	if _, ok := c.get("a"); !ok { // a is now used last
		t.Fatal("a not kept")
	}
	c.put("c", "C", 4) // over the budget: b goes
	if _, ok := c.get("b"); ok {
		t.Error("b kept past the budget")
	}
	for _, k := range []string{"a", "c"} {
		if _, ok := c.get(k); !ok {
			t.Errorf("%s not kept", k)
		}
	}
	c.put("big", "X", 11)
	if _, ok := c.get("big"); ok {
		t.Error("a value over the whole budget kept")
	}
	c.put("a", "A2", 6)
	if v, _ := c.get("a"); v != "A2" || c.used > c.budget {
		t.Errorf("a = %q, used %d of %d", v, c.used, c.budget)
	}
}

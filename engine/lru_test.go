package engine

import "testing"

// TestLRU: values are kept within the budget, the one used least recently
// goes first, a value larger than the budget is not kept, and putting a
// key again replaces it.
func TestLRU(t *testing.T) {
	c := newLRU[string](10 + 2*lruEntryCost)
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
	c.put("big", "X", 11+2*lruEntryCost)
	if _, ok := c.get("big"); ok {
		t.Error("a value over the whole budget kept")
	}
	c.put("a", "A2", 6)
	if v, _ := c.get("a"); v != "A2" || c.used > c.budget {
		t.Errorf("a = %q, used %d of %d", v, c.used, c.budget)
	}
}

// TestLRUEmptyValues: values of size 0 (empty files) still count, so the
// cache cannot grow without bound.
func TestLRUEmptyValues(t *testing.T) {
	c := newLRU[[]byte](10 * lruEntryCost)
	for i := range 1000 {
		c.put(string(rune('a'+i%26))+string(rune(i)), nil, 0)
	}
	if len(c.items) > 10 || c.order.Len() != len(c.items) {
		t.Errorf("%d entries kept (%d in order), want at most 10", len(c.items), c.order.Len())
	}
}

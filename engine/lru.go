package engine

import (
	"container/list"
	"sync"
)

// lru keeps the values used last, up to a budget of bytes (each value's
// size as the caller counts it): the builtins' texts and word sets of the
// files being asked about, so that the questions a rule asks of one file
// in a row read it once, while what is kept does not grow with the
// repository. Safe for concurrent use.
type lru[V any] struct {
	mu     sync.Mutex
	budget int
	used   int
	order  *list.List // front: used last
	items  map[string]*list.Element
}

// lruEntryCost is what an entry costs besides its value: the list
// element, the map slot and the key, roughly.
const lruEntryCost = 128

type lruEntry[V any] struct {
	key  string
	val  V
	size int
}

func newLRU[V any](budget int) *lru[V] {
	return &lru[V]{budget: budget, order: list.New(), items: map[string]*list.Element{}}
}

func (c *lru[V]) get(key string) (V, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if e, ok := c.items[key]; ok {
		c.order.MoveToFront(e)
		return e.Value.(*lruEntry[V]).val, true
	}
	var zero V
	return zero, false
}

// put keeps val unless it is larger than the whole budget, dropping the
// values used least recently to make room.
func (c *lru[V]) put(key string, val V, size int) {
	// Each entry costs its bookkeeping too, so that empty values (empty
	// files) cannot pile up without bound (review of issue 16).
	size += lruEntryCost
	if size > c.budget {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if e, ok := c.items[key]; ok {
		c.used -= e.Value.(*lruEntry[V]).size
		c.order.Remove(e)
		delete(c.items, key)
	}
	for c.used+size > c.budget && c.order.Len() > 0 {
		old := c.order.Back()
		ent := old.Value.(*lruEntry[V])
		c.used -= ent.size
		c.order.Remove(old)
		delete(c.items, ent.key)
	}
	c.items[key] = c.order.PushFront(&lruEntry[V]{key: key, val: val, size: size})
	c.used += size
}

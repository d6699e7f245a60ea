package main

import (
	"errors"
	"os"

	"github.com/buildgate/buildgate/loader"
)

func asPathError(err error, target **os.PathError) bool { return errors.As(err, target) }

func asReadError(err error, target **loader.ReadError) bool { return errors.As(err, target) }

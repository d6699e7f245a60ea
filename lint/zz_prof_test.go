package lint
import ("context";"os";"testing";"github.com/buildgate/buildgate/config";"github.com/buildgate/buildgate/engine";"github.com/buildgate/buildgate/policies")
func TestProfLint(t *testing.T){
	mods,_:=engine.ModulesFromFS(policies.FS,".",false)
	e,err:=engine.Compile(context.Background(),mods,"x"); if err!=nil{t.Fatal(err)}
	_,err=Run(context.Background(),Options{Root:os.Getenv("R"),Paths:[]string{os.Getenv("R")},Config:config.Default(),Engine:e})
	if err!=nil{t.Fatal(err)}
}

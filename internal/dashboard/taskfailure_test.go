package dashboard_test

import (
	"context"
	"encoding/json"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/sudocode/sudocode/internal/dashboard"
)

// A failed task's page shows why as a sentence: the agent's exit code and
// the last line it wrote, not the raw JSON of the error's details.
func TestTaskFailureIsASentence(t *testing.T) {
	f := newFixture(t)
	o := f.openTasks(t)
	ts, _ := serveWithTasks(t, f, o, dashboard.Options{})
	task := createCommandTask(t, o, `echo starting >&2; echo "config.yaml: no such file" >&2; exit 3`)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	if err := o.Wait(ctx, task.ID); err != nil {
		t.Fatal(err)
	}
	resp, err := ts.Client().Get(ts.URL + "/api/tasks/" + task.ID)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	var got struct {
		Status  string `json:"status"`
		Failure string `json:"failure"`
	}
	if err := json.Unmarshal(body, &got); err != nil {
		t.Fatal(err)
	}
	want := "The agent exited with code 3: config.yaml: no such file"
	if got.Status != "failed" || got.Failure != want {
		t.Fatalf("failure %q (status %s), want %q\n%s", got.Failure, got.Status, want, body)
	}
	js, err := ts.Client().Get(ts.URL + "/assets/tasks.js")
	if err != nil {
		t.Fatal(err)
	}
	defer js.Body.Close()
	page, _ := io.ReadAll(js.Body)
	if strings.Contains(string(page), "JSON.stringify(t.error.details)") || !strings.Contains(string(page), "t.failure") {
		t.Error("the page does not show the failure sentence")
	}
}

package main

// franzbench share <bootstrap> <topic> <group> <stopFile> <timeoutMs>
//
// One member of a share group (KIP-932, kgo.ShareGroup): polls, accepts every record
// (AckAccept) and flushes the acknowledgements after each poll (FlushAcks), timing each flush:
// the acknowledgement latency, until the broker answered. After each flush it prints
// {"accepted":N} (records whose acknowledgement the broker answered without an error, so far);
// once stopFile exists or timeoutMs passed it closes (leaving the group) and prints
// {"accepted":N,"ackMs":[..],"errors":E,"firstError":".."}.

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"sync"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"
)

type shareResult struct {
	Accepted   int64     `json:"accepted"`
	AckMs      []float64 `json:"ackMs,omitempty"`
	Errors     int64     `json:"errors"`
	FirstError string    `json:"firstError,omitempty"`
}

func shareMember(bootstrap, topic, group, stopFile string, timeoutMs int64) (shareResult, error) {
	var mu sync.Mutex
	var r shareResult
	failedAcks := 0
	client, err := kgo.NewClient(
		kgo.SeedBrokers(bootstrap),
		kgo.ClientID("brook-bench-franz-share"),
		kgo.ShareGroup(group),
		kgo.ConsumeTopics(topic),
		kgo.ShareAckCallback(func(_ *kgo.Client, results kgo.ShareAckResults) {
			mu.Lock()
			defer mu.Unlock()
			for _, res := range results {
				if res.Err != nil {
					failedAcks++
					if r.Errors == 0 {
						r.FirstError = res.Err.Error()
					}
					r.Errors++
				}
			}
		}),
	)
	if err != nil {
		return r, err
	}
	deadline := time.Now().Add(time.Duration(timeoutMs) * time.Millisecond)
	stopped := func() bool {
		_, err := os.Stat(stopFile)
		return err == nil || time.Now().After(deadline)
	}
	for !stopped() {
		ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
		fetches := client.PollFetches(ctx)
		cancel()
		n := int64(0)
		fetches.EachRecord(func(rec *kgo.Record) {
			rec.Ack(kgo.AckAccept)
			n++
		})
		if n == 0 {
			continue
		}
		mu.Lock()
		failedAcks = 0
		mu.Unlock()
		start := time.Now()
		flushCtx, flushCancel := context.WithTimeout(context.Background(), 30*time.Second)
		err := client.FlushAcks(flushCtx)
		flushCancel()
		ms := float64(time.Since(start).Microseconds()) / 1000
		mu.Lock()
		if err == nil && failedAcks == 0 {
			r.Accepted += n
			r.AckMs = append(r.AckMs, ms)
		} else if err != nil {
			if r.Errors == 0 {
				r.FirstError = err.Error()
			}
			r.Errors++
		}
		line, _ := json.Marshal(map[string]int64{"accepted": r.Accepted})
		mu.Unlock()
		fmt.Println(string(line))
	}
	client.Close()
	return r, nil
}

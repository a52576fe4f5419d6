// One member of a share group (KIP-932) with franz-go's client (kgo.ShareGroup), for
// Brook's interop tests; the same contract as test/support/java ShareGroupConsumer.java.
//
//	franz-share <brokers> <topic> <group> <releaseEvery> <stopFile> <timeoutMs>
//
// Each record is acknowledged: RELEASE when it is delivered for the first time and its offset
// is a multiple of releaseEvery (0: never), ACCEPT otherwise. After each poll the
// acknowledgements are flushed (FlushAcks), and a partition's records are printed, one JSON
// line each ({"p":..,"o":..,"d":..,"v":..,"ack":"ACCEPT"|"RELEASE"}), only once the broker
// answered its acknowledgements without an error (the ack callback); an error prints
// {"error":..}. Stops once stopFile exists or after timeoutMs, closes the client (which
// leaves the group) and prints {"closed":true}.
package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"
)

type line struct {
	P   int32  `json:"p"`
	O   int64  `json:"o"`
	D   int32  `json:"d"`
	V   string `json:"v"`
	Ack string `json:"ack"`
}

func main() {
	if len(os.Args) != 7 {
		fmt.Fprintln(os.Stderr, "usage: franz-share <brokers> <topic> <group> <releaseEvery> <stopFile> <timeoutMs>")
		os.Exit(2)
	}
	brokers := strings.Split(os.Args[1], ",")
	topic, group := os.Args[2], os.Args[3]
	releaseEvery, _ := strconv.ParseInt(os.Args[4], 10, 64)
	stopFile := os.Args[5]
	timeoutMs, _ := strconv.ParseInt(os.Args[6], 10, 64)
	deadline := time.Now().Add(time.Duration(timeoutMs) * time.Millisecond)

	var mu sync.Mutex
	failed := map[int32]error{}
	cl, err := kgo.NewClient(
		kgo.SeedBrokers(brokers...),
		kgo.ConsumeTopics(topic),
		kgo.ShareGroup(group),
		kgo.ShareAckCallback(func(_ *kgo.Client, results kgo.ShareAckResults) {
			mu.Lock()
			defer mu.Unlock()
			for _, r := range results {
				if r.Err != nil {
					failed[r.Partition] = r.Err
				}
			}
		}),
	)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	out := json.NewEncoder(os.Stdout)
	stopped := func() bool {
		_, err := os.Stat(stopFile)
		return err == nil || time.Now().After(deadline)
	}
	for !stopped() {
		ctx, cancel := context.WithTimeout(context.Background(), 500*time.Millisecond)
		fetches := cl.PollFetches(ctx)
		cancel()
		byPartition := map[int32][]line{}
		fetches.EachRecord(func(r *kgo.Record) {
			d := r.DeliveryCount()
			release := releaseEvery > 0 && d == 1 && r.Offset%releaseEvery == 0
			status, name := kgo.AckAccept, "ACCEPT"
			if release {
				status, name = kgo.AckRelease, "RELEASE"
			}
			r.Ack(status)
			byPartition[r.Partition] = append(byPartition[r.Partition], line{r.Partition, r.Offset, d, string(r.Value), name})
		})
		if len(byPartition) == 0 {
			continue
		}
		mu.Lock()
		failed = map[int32]error{}
		mu.Unlock()
		flushCtx, flushCancel := context.WithTimeout(context.Background(), 30*time.Second)
		err := cl.FlushAcks(flushCtx)
		flushCancel()
		mu.Lock()
		for p, lines := range byPartition {
			if e, bad := failed[p]; bad || err != nil {
				if e == nil {
					e = err
				}
				out.Encode(map[string]string{"error": fmt.Sprintf("partition %d: %v", p, e)})
				continue
			}
			for _, l := range lines {
				out.Encode(l)
			}
		}
		mu.Unlock()
	}
	cl.Close()
	fmt.Println(`{"closed":true}`)
}

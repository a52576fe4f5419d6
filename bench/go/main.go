// Command franzbench is the franz-go side of Brook's benchmarks (bench/, scenarios 1 and 2).
//
//	franzbench consume <bootstrap> <topic> <group> <records> <timeoutMs>
//	franzbench produce <bootstrap> <topic> <records> <valueBytes> <acks: all|1>
//	franzbench share <bootstrap> <topic> <group> <stopFile> <timeoutMs>   (share.go)
//
// consume joins a fresh group (classic protocol, earliest offsets) and polls until it has
// <records> records; produce sends <records> records with a nil key, as fast as the client
// buffers allow, and flushes. Both print one JSON line:
// {"records":N,"ms":..,"firstMs":..,"bytes":..,"timedOut":false,"errors":N,"firstError":".."}
// (FRANZBENCH_COMPRESSION in the environment sets produce's codec, see produce).
// with ms from the start of work (client creation and subscription included for consume, the
// first send for produce) to the last record or acknowledgement; firstMs (consume) to the
// first record.
package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"
)

type result struct {
	Records    int64   `json:"records"`
	Ms         float64 `json:"ms"`
	FirstMs    float64 `json:"firstMs"`
	Bytes      int64   `json:"bytes"`
	TimedOut   bool    `json:"timedOut"`
	Errors     int64   `json:"errors"`
	FirstError string  `json:"firstError,omitempty"`
}

func main() {
	if len(os.Args) != 7 {
		fmt.Fprintln(os.Stderr, "usage: franzbench consume <bootstrap> <topic> <group> <records> <timeoutMs>\n       franzbench produce <bootstrap> <topic> <records> <valueBytes> <all|1>\n       franzbench share <bootstrap> <topic> <group> <stopFile> <timeoutMs>")
		os.Exit(2)
	}
	if os.Args[1] == "share" {
		r, err := shareMember(os.Args[2], os.Args[3], os.Args[4], os.Args[5], atoi(os.Args[6]))
		if err != nil {
			fmt.Fprintln(os.Stderr, "franzbench:", err)
			os.Exit(1)
		}
		out, _ := json.Marshal(r)
		fmt.Println(string(out))
		return
	}
	var r result
	var err error
	switch os.Args[1] {
	case "consume":
		r, err = consume(os.Args[2], os.Args[3], os.Args[4], atoi(os.Args[5]), atoi(os.Args[6]))
	case "produce":
		r, err = produce(os.Args[2], os.Args[3], atoi(os.Args[4]), atoi(os.Args[5]), os.Args[6])
	default:
		err = fmt.Errorf("unknown mode %q", os.Args[1])
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "franzbench:", err)
		os.Exit(1)
	}
	out, _ := json.Marshal(r)
	fmt.Println(string(out))
}

func atoi(s string) int64 {
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil {
		fmt.Fprintln(os.Stderr, "franzbench: not a number:", s)
		os.Exit(2)
	}
	return n
}

func consume(bootstrap, topic, group string, wanted, timeoutMs int64) (result, error) {
	start := time.Now()
	client, err := kgo.NewClient(
		kgo.SeedBrokers(bootstrap),
		kgo.ClientID("brook-bench-franz-consumer"),
		kgo.ConsumerGroup(group),
		kgo.ConsumeTopics(topic),
		kgo.ConsumeResetOffset(kgo.NewOffset().AtStart()),
	)
	if err != nil {
		return result{}, err
	}
	defer client.Close()
	ctx, cancel := context.WithTimeout(context.Background(), time.Duration(timeoutMs)*time.Millisecond)
	defer cancel()
	r := result{FirstMs: -1}
	last := start
	for r.Records < wanted {
		fetches := client.PollFetches(ctx)
		if ctx.Err() != nil {
			r.TimedOut = true
			break
		}
		fetches.EachError(func(_ string, _ int32, e error) {
			if r.Errors == 0 {
				r.FirstError = e.Error()
			}
			r.Errors++
		})
		n := 0
		fetches.EachRecord(func(rec *kgo.Record) {
			n++
			r.Bytes += int64(len(rec.Value))
		})
		if n > 0 {
			r.Records += int64(n)
			last = time.Now()
			if r.FirstMs < 0 {
				r.FirstMs = float64(last.Sub(start).Microseconds()) / 1000
			}
		}
	}
	r.Ms = float64(last.Sub(start).Microseconds()) / 1000
	return r, nil
}

func produce(bootstrap, topic string, records, valueBytes int64, acks string) (result, error) {
	opts := []kgo.Opt{
		kgo.SeedBrokers(bootstrap),
		kgo.ClientID("brook-bench-franz-producer"),
		kgo.DefaultProduceTopic(topic),
	}
	// FRANZBENCH_COMPRESSION=none|snappy|lz4|zstd|gzip overrides franz-go's default (snappy), to
	// compare producers at the same codec.
	switch os.Getenv("FRANZBENCH_COMPRESSION") {
	case "":
	case "none":
		opts = append(opts, kgo.ProducerBatchCompression(kgo.NoCompression()))
	case "snappy":
		opts = append(opts, kgo.ProducerBatchCompression(kgo.SnappyCompression()))
	case "lz4":
		opts = append(opts, kgo.ProducerBatchCompression(kgo.Lz4Compression()))
	case "zstd":
		opts = append(opts, kgo.ProducerBatchCompression(kgo.ZstdCompression()))
	case "gzip":
		opts = append(opts, kgo.ProducerBatchCompression(kgo.GzipCompression()))
	default:
		return result{}, fmt.Errorf("unknown FRANZBENCH_COMPRESSION %q", os.Getenv("FRANZBENCH_COMPRESSION"))
	}
	if acks == "1" {
		opts = append(opts, kgo.RequiredAcks(kgo.LeaderAck()), kgo.DisableIdempotentWrite())
	} else {
		opts = append(opts, kgo.RequiredAcks(kgo.AllISRAcks()))
	}
	client, err := kgo.NewClient(opts...)
	if err != nil {
		return result{}, err
	}
	defer client.Close()
	ctx := context.Background()
	// Metadata first, so the timed part measures sending.
	if err := client.Ping(ctx); err != nil {
		return result{}, err
	}
	value := make([]byte, valueBytes)
	for i := range value {
		value[i] = 'x'
	}
	var errors atomic.Int64
	var firstError atomic.Value
	var wg sync.WaitGroup
	start := time.Now()
	for i := int64(0); i < records; i++ {
		wg.Add(1)
		client.Produce(ctx, &kgo.Record{Value: value}, func(_ *kgo.Record, e error) {
			if e != nil && errors.Add(1) == 1 {
				firstError.Store(e.Error())
			}
			wg.Done()
		})
	}
	wg.Wait()
	r := result{Records: records, Ms: float64(time.Since(start).Microseconds()) / 1000, Bytes: records * valueBytes, Errors: errors.Load()}
	if s, ok := firstError.Load().(string); ok {
		r.FirstError = s
	}
	return r, nil
}

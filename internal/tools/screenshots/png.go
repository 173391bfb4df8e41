package main

import (
	"bytes"
	"fmt"
	"image"
	"image/color"
	"image/png"
	"os"
	"sort"
)

// shrink writes the PNG data to path with at most 256 colours: a
// terminal's screen has a few colours and their anti-aliased edges, so
// the most frequent 256 draw it as resvg did, in about an eighth of the
// bytes of its RGBA. Each other colour takes the nearest of them.
func shrink(data []byte, path string) error {
	img, err := png.Decode(bytes.NewReader(data))
	if err != nil {
		return fmt.Errorf("shrink %s: %w", path, err)
	}
	b := img.Bounds()
	count := map[color.RGBA]int{}
	for y := b.Min.Y; y < b.Max.Y; y++ {
		for x := b.Min.X; x < b.Max.X; x++ {
			count[color.RGBAModel.Convert(img.At(x, y)).(color.RGBA)]++
		}
	}
	colors := make([]color.RGBA, 0, len(count))
	for c := range count {
		colors = append(colors, c)
	}
	sort.Slice(colors, func(i, j int) bool {
		if count[colors[i]] != count[colors[j]] {
			return count[colors[i]] > count[colors[j]]
		}
		a, c := colors[i], colors[j]
		return uint32(a.R)<<24|uint32(a.G)<<16|uint32(a.B)<<8|uint32(a.A) < uint32(c.R)<<24|uint32(c.G)<<16|uint32(c.B)<<8|uint32(c.A)
	})
	if len(colors) > 256 {
		colors = colors[:256]
	}
	pal := make(color.Palette, len(colors))
	for i, c := range colors {
		pal[i] = c
	}
	index := map[color.RGBA]uint8{}
	out := image.NewPaletted(b, pal)
	for y := b.Min.Y; y < b.Max.Y; y++ {
		for x := b.Min.X; x < b.Max.X; x++ {
			c := color.RGBAModel.Convert(img.At(x, y)).(color.RGBA)
			i, ok := index[c]
			if !ok {
				i = uint8(pal.Index(c))
				index[c] = i
			}
			out.SetColorIndex(x, y, i)
		}
	}
	w, err := os.Create(path)
	if err != nil {
		return fmt.Errorf("shrink: %w", err)
	}
	enc := png.Encoder{CompressionLevel: png.BestCompression}
	if err := enc.Encode(w, out); err != nil {
		_ = w.Close()
		return fmt.Errorf("shrink %s: %w", path, err)
	}
	return w.Close()
}

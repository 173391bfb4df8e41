package main

import (
	"context"
	"fmt"

	"github.com/charmbracelet/freeze/font"
	resvg "github.com/kanrichan/resvg-go"
)

// raster turns freeze's SVGs into PNGs as freeze itself does when it
// writes a PNG (resvg in WebAssembly, freeze's own fonts, its options),
// with one resvg for all the screenshots: starting it takes seconds, and
// freeze starts one per image. It also never hands the work to an
// rsvg-convert found on PATH, as freeze does, which would draw with
// other fonts.
type raster struct {
	worker *resvg.Worker
	fonts  *resvg.FontDB
}

func newRaster() (*raster, error) {
	worker, err := resvg.NewDefaultWorker(context.Background())
	if err != nil {
		return nil, fmt.Errorf("resvg: %w", err)
	}
	fonts, err := worker.NewFontDBDefault()
	if err != nil {
		_ = worker.Close()
		return nil, fmt.Errorf("resvg fonts: %w", err)
	}
	for _, ttf := range [][]byte{font.JetBrainsMonoTTF, font.JetBrainsMonoNLTTF} {
		if err := fonts.LoadFontData(ttf); err != nil {
			_ = fonts.Close()
			_ = worker.Close()
			return nil, fmt.Errorf("resvg fonts: %w", err)
		}
	}
	return &raster{worker: worker, fonts: fonts}, nil
}

func (r *raster) Close() {
	_ = r.fonts.Close()
	_ = r.worker.Close()
}

// png draws an SVG of w×h pixels.
func (r *raster) png(svg []byte, w, h float64) ([]byte, error) {
	pixmap, err := r.worker.NewPixmap(uint32(w), uint32(h))
	if err != nil {
		return nil, fmt.Errorf("resvg pixmap: %w", err)
	}
	defer func() { _ = pixmap.Close() }()
	tree, err := r.worker.NewTreeFromData(svg, &resvg.Options{
		Dpi:                192,
		ShapeRenderingMode: resvg.ShapeRenderingModeGeometricPrecision,
		TextRenderingMode:  resvg.TextRenderingModeOptimizeLegibility,
		ImageRenderingMode: resvg.ImageRenderingModeOptimizeQuality,
		DefaultSizeWidth:   float32(w),
		DefaultSizeHeight:  float32(h),
	})
	if err != nil {
		return nil, fmt.Errorf("resvg svg: %w", err)
	}
	defer func() { _ = tree.Close() }()
	if err := tree.ConvertText(r.fonts); err != nil {
		return nil, fmt.Errorf("resvg text: %w", err)
	}
	if err := tree.Render(resvg.TransformIdentity(), pixmap); err != nil {
		return nil, fmt.Errorf("resvg render: %w", err)
	}
	out, err := pixmap.EncodePNG()
	if err != nil {
		return nil, fmt.Errorf("resvg png: %w", err)
	}
	return out, nil
}

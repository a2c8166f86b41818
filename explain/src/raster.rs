//! An 8-bit RGB raster, what the PNG picture is drawn into, and its PNG encoding and
//! decoding (the `png` crate), so that tests can read back the pixels a PNG holds.

/// One pixel's red, green and blue.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Rgb(pub [u8; 3]);

/// A width x height raster of [`Rgb`] pixels, row 0 at the top.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RgbImage {
    width: u32,
    height: u32,
    data: Vec<u8>,
}

/// Why PNG bytes could not be read as an 8-bit RGB or RGBA picture.
#[derive(Debug, thiserror::Error)]
pub enum DecodeError {
    /// The PNG decoder refused the bytes.
    #[error("{0}")]
    Png(#[from] png::DecodingError),
    /// A PNG of another colour type or depth than the pictures have.
    #[error("not an 8-bit RGB or RGBA PNG ({0:?}, {1:?})")]
    Unsupported(png::ColorType, png::BitDepth),
}

impl RgbImage {
    /// A raster filled with `fill`.
    pub fn from_pixel(width: u32, height: u32, fill: Rgb) -> Self {
        let n = width as usize * height as usize;
        RgbImage {
            width,
            height,
            data: fill.0.repeat(n),
        }
    }

    /// Width in pixels.
    pub fn width(&self) -> u32 {
        self.width
    }

    /// Height in pixels.
    pub fn height(&self) -> u32 {
        self.height
    }

    /// (width, height).
    pub fn dimensions(&self) -> (u32, u32) {
        (self.width, self.height)
    }

    fn at(&self, x: u32, y: u32) -> usize {
        assert!(
            x < self.width && y < self.height,
            "pixel ({x}, {y}) outside"
        );
        3 * (y as usize * self.width as usize + x as usize)
    }

    /// Sets pixel (x, y) (inside the raster).
    pub fn put_pixel(&mut self, x: u32, y: u32, rgb: Rgb) {
        let i = self.at(x, y);
        self.data[i..i + 3].copy_from_slice(&rgb.0);
    }

    /// Pixel (x, y) (inside the raster).
    pub fn get_pixel(&self, x: u32, y: u32) -> Rgb {
        let i = self.at(x, y);
        Rgb([self.data[i], self.data[i + 1], self.data[i + 2]])
    }

    /// Every pixel, row by row.
    pub fn pixels(&self) -> impl Iterator<Item = Rgb> + '_ {
        self.data.chunks_exact(3).map(|p| Rgb([p[0], p[1], p[2]]))
    }

    /// The raster as an 8-bit RGB PNG.
    pub fn encode_png(&self) -> Result<Vec<u8>, png::EncodingError> {
        let mut bytes = Vec::new();
        let mut enc = png::Encoder::new(&mut bytes, self.width, self.height);
        enc.set_color(png::ColorType::Rgb);
        enc.set_depth(png::BitDepth::Eight);
        let mut writer = enc.write_header()?;
        writer.write_image_data(&self.data)?;
        writer.finish()?;
        Ok(bytes)
    }

    /// An 8-bit RGB or RGBA PNG read back (alpha dropped).
    pub fn decode_png(bytes: &[u8]) -> Result<Self, DecodeError> {
        let mut reader = png::Decoder::new(std::io::Cursor::new(bytes)).read_info()?;
        let mut buf = vec![0; reader.output_buffer_size().unwrap_or(0)];
        let info = reader.next_frame(&mut buf)?;
        let stride = match (info.color_type, info.bit_depth) {
            (png::ColorType::Rgb, png::BitDepth::Eight) => 3,
            (png::ColorType::Rgba, png::BitDepth::Eight) => 4,
            (c, d) => return Err(DecodeError::Unsupported(c, d)),
        };
        let row = info.line_size;
        let mut data = Vec::with_capacity(info.width as usize * info.height as usize * 3);
        for y in 0..info.height as usize {
            for p in buf[y * row..y * row + info.width as usize * stride].chunks_exact(stride) {
                data.extend_from_slice(&p[..3]);
            }
        }
        Ok(RgbImage {
            width: info.width,
            height: info.height,
            data,
        })
    }
}
